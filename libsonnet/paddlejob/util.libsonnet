// Small helpers that older jsonnet releases lack (std.get and std.all came with 0.20): the
// library runs on the jsonnet of Debian, Tanka and jsonnet-bundler users alike.
{
  get(obj, field, default=null):: if std.objectHas(obj, field) then obj[field] else default,
  all(list):: std.foldl(function(acc, x) acc && x, list, true),
}
