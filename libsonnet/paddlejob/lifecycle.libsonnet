// What a job's lifecycle flags promise, held to what each runtime's controller does with the
// rendered objects (issue 34). check(job, runtime, releases) stops with a one-line error where the
// controller would do otherwise than the flags say; the controllers' source is cited per case
// (docs/runtimes.md's lifecycle table, written from generator/local/controllers/*.py, says the
// same per runtime and scenario).
//
// `releases`: { kubernetes: '1.30', trainer: '2.2', ... } as `job` and the Python API pass them
// (the newest known where not given; a jsonnet user who gives none is judged on no release).
local util = import 'util.libsonnet';
local has(obj, field) = std.objectHas(obj, field) && obj[field] != null;

// The fields the description knows (docs/jobs.md), by where they are.
local known = {
  job: [
    'name',
    'image',
    'namespace',
    'command',
    'args',
    'workingDir',
    'env',
    'labels',
    'roles',
    'cleanPodPolicy',
    'intranet',
    'withGloo',
    'elastic',
    'volcano',
    'kueueQueue',
    'coscheduling',
    'nodeSelector',
    'tolerations',
    'shm',
    'volumes',
    'port',
    'ttl',
    'deadline',
    'backoffLimit',
    'suspend',
    'managedBy',
    'priorityClass',
  ],
  role: ['replicas', 'cpu', 'memory', 'gpu', 'env', 'template', 'image', 'command', 'args'],
  elastic: ['etcd', 'minReplicas', 'maxReplicas', 'level', 'maxRestart', 'timeout'],
  volcano: ['queue', 'priorityClass', 'minAvailable', 'minResources', 'podGroup'],
  volume: ['name', 'mountPath', 'pvc', 'hostPath', 'cephfs'],
};

// Levenshtein distance, case-insensitive ('backofflimit' is backoffLimit's misspelling).
local distance(x, y) =
  local a = std.asciiLower(x), b = std.asciiLower(y);
  local lb = std.length(b);
  local step(prev, i) = std.foldl(
    function(row, j) row + [std.min(std.min(row[j - 1] + 1, prev[j] + 1), prev[j - 1] + (if a[i - 1] == b[j - 1] then 0 else 1))],
    std.range(1, lb),
    [i]
  );
  if lb == 0 then std.length(a) else std.foldl(step, std.range(1, std.length(a)), std.range(0, lb))[lb];

local nearest(name, names) =
  std.foldl(function(best, n) if best == null || distance(name, n) < distance(name, best) then n else best, names, null);

local unknown(obj, names, where) =
  local bad = [f for f in std.objectFields(obj) if !std.member(names, f)];
  assert bad == [] :
         '%s%s is not a field of the job description%s; the fields are %s (docs/jobs.md)' % [
    where,
    bad[0],
    (local n = nearest(bad[0], names); if distance(bad[0], n) <= std.max(2, std.length(bad[0]) / 3) then "; did you mean '%s'?" % n else ''),
    std.join(', ', names),
  ];
  true;

local isObjectOf(v, kind) = std.isObject(v) && util.all([std.type(v[k]) == kind for k in std.objectFields(v)]);

// Kubernetes' int32 fields: the apiserver refuses a larger value (ttlSecondsAfterFinished,
// backoffLimit, Volcano's maxRetry, a JobSet's maxRestarts are all int32).
local int32Max = 2147483647;

local minor(releases, project) =
  local given = util.get(releases, project);
  if given == null then null else [std.parseInt(p) for p in std.split(given, '.')];
local atLeast(version, want) = version == null || version[0] > want[0] || (version[0] == want[0] && version[1] >= want[1]);

local multikueue = 'kueue.x-k8s.io/multikueue';

// The launcher Paddle's elastic mode needs (elastic.libsonnet): python -m paddle.distributed.launch or fleetrun.
local launches(words) =
  local text = std.join(' ', [w for w in words if std.isString(w)]);
  std.length(std.findSubstr('paddle.distributed.launch', text)) > 0 || std.length(std.findSubstr('fleetrun', text)) > 0;

{
  known:: known,
  nearest:: nearest,

  check(job, runtime, releases={})::
    // -- issue 34 case 13: every field is one the library knows, of the type it reads --
    assert unknown(job, known.job, '');
    local roles = util.get(job, 'roles', {});
    assert std.isObject(roles) : 'roles must be an object {ps, worker, heter}, got %s' % std.type(roles);
    assert util.all([!std.isObject(roles[r]) || unknown(roles[r], known.role, 'roles.%s.' % r) for r in std.objectFields(roles)]);
    assert !has(job, 'elastic') || !std.isObject(job.elastic) || unknown(job.elastic, known.elastic, 'elastic.');
    assert !has(job, 'volcano') || !std.isObject(job.volcano) || unknown(job.volcano, known.volcano, 'volcano.');
    assert util.all([!std.isObject(v) || unknown(v, known.volume, 'volumes[].') for v in (local vs = util.get(job, 'volumes', []); if std.isArray(vs) then vs else [])]);
    local maps = [f for f in ['nodeSelector', 'labels', 'env'] if has(job, f) && !isObjectOf(job[f], 'string')];
    assert maps == [] : '%s must be an object of strings {"key": "value"}, got %s' % [maps[0], std.type(job[maps[0]])];
    local lists = [f for f in ['tolerations', 'volumes', 'command', 'args'] if has(job, f) && !std.isArray(job[f])];
    assert lists == [] : '%s must be an array, got %s' % [lists[0], std.type(job[lists[0]])];
    local words = [f for f in ['command', 'args'] if has(job, f) && !util.all([std.isString(w) for w in job[f]])];
    assert words == [] : '%s must be an array of strings (the words of the program)' % words[0];

    // -- case 15: int32 fields --
    local big = [f for f in ['ttl', 'backoffLimit'] if has(job, f) && std.isNumber(job[f]) && job[f] > int32Max];
    assert big == [] : '%s must be at most %d (the field is an int32; the apiserver refuses %d)' % [big[0], int32Max, job[big[0]]];

    local kube = minor(releases, 'kubernetes');
    local isElastic = has(job, 'elastic') && std.isObject(job.elastic);
    local workers = if std.objectHas(roles, 'worker') && std.isObject(roles.worker) then util.get(roles.worker, 'replicas', 1) else 1;
    local fewest = if isElastic then util.get(job.elastic, 'minReplicas', workers) else workers;
    local maxRestart = if isElastic then util.get(job.elastic, 'maxRestart', 3) else null;
    local ownEtcd = isElastic && util.get(job.elastic, 'etcd') == null;
    local managedBy = util.get(job, 'managedBy');

    // -- case 14: elastic needs Paddle's launcher (CollectiveElasticController runs only in it) --
    local command = util.get(job, 'command', []) + util.get(job, 'args', [])
                    + (if std.objectHas(roles, 'worker') && std.isObject(roles.worker) then util.get(roles.worker, 'command', []) + util.get(roles.worker, 'args', []) else []);
    assert !isElastic || !has(job, 'command') || launches(command) :
           "elastic training needs Paddle's launcher in the command (python -m paddle.distributed.launch ... or fleetrun ...): only it reads PADDLE_MASTER=etcd://... and meets again after a failure (launch/controllers/collective.py CollectiveElasticController); got '%s'" % std.join(' ', command);

    // -- case 1: Volcano --
    // pkg/webhooks/admission/jobs/mutate/mutate_job.go patchDefaultMaxRetry (v1.15.0, l. 161-164)
    // turns maxRetry 0 into 3.
    assert runtime != 'volcano' || !has(job, 'backoffLimit') || job.backoffLimit != 0 :
           "backoffLimit 0 cannot be expressed on the volcano runtime: Volcano's webhook turns maxRetry 0 into 3 (pkg/webhooks/admission/jobs/mutate/mutate_job.go patchDefaultMaxRetry); give 1 or more";
    // An elastic Volcano Job has no RestartJob policy (a restart would stop the survivors): its
    // controller never reaches maxRetry (state/restarting.go reads it only on a restart).
    assert runtime != 'volcano' || !isElastic || !has(job, 'backoffLimit') :
           "backoffLimit cannot be expressed on the volcano runtime with elastic: an elastic Volcano Job has no RestartJob policy, so Volcano never counts a retry (pkg/controllers/job/state/restarting.go reads maxRetry only on a restart); the launchers' own restarts are elastic.maxRestart (--max-restart)";

    // -- case 2: a lost node or a crashed worker is a failed pod of an Indexed Job --
    // pkg/controller/job/job_controller.go syncJob: the Job fails (BackoffLimitExceeded) once its
    // failed pods exceed backoffLimit, whatever the launchers' PADDLE_MAX_RESTART allows.
    assert !std.member(['kubernetes', 'jobset'], runtime) || !isElastic || !has(job, 'backoffLimit') || job.backoffLimit >= maxRestart :
           'backoffLimit (%s) is below elastic.maxRestart (%s): each failed worker is a failed pod of the Indexed Job, which fails (BackoffLimitExceeded, pkg/controller/job/job_controller.go syncJob) after backoffLimit of them, before the launchers have met again maxRestart times; give at least %s, or leave it out (it is then elastic.maxRestart)' % [
      util.get(job, 'backoffLimit'),
      maxRestart,
      maxRestart,
    ];

    // -- cases 3 and 4: an elastic job that has shrunk must be able to finish --
    assert runtime != 'paddle-operator' || !isElastic || fewest == workers :
           "elastic.minReplicas (%d) below roles.worker.replicas (%d) cannot be expressed on the paddle-operator runtime: v0.3.5 writes the job's ConfigMap, which every container reads through envFrom, only once every pod has an IP (controllers/paddlejob_controller.go Reconcile), marks the job Failed when a pod fails or is evicted and Completed only when every replica has succeeded (controllers/paddlejob_helper.go getPaddleJobPhase): it never trains with fewer; use the volcano, kubernetes or jobset runtime" % [fewest, workers];
    // kubernetes and jobset: the Indexed Job's successPolicy (succeededCount) completes it with
    // the fewest workers: JobSuccessPolicy, beta and on by default from Kubernetes 1.31.
    assert !std.member(['kubernetes', 'jobset'], runtime) || !isElastic || fewest == workers || atLeast(kube, [1, 31]) :
           'elastic.minReplicas (%d) below roles.worker.replicas (%d) needs Kubernetes 1.31 or newer on the %s runtime, got %s: an Indexed Job completes only when every index has succeeded (pkg/controller/job/job_controller.go), unless its successPolicy says fewer (the JobSuccessPolicy gate, on by default from 1.31)' % [fewest, workers, runtime, util.get(releases, 'kubernetes')];

    // -- case 5: the job's own etcd is no object of the job's: it outlives the job --
    local outlives = [f for f in ['ttl', 'deadline', 'suspend'] if has(job, f) && job[f] != false];
    assert !ownEtcd || outlives == [] || !std.member(['kubernetes', 'volcano', 'jobset'], runtime) :
           "%s with the job's own etcd cannot be expressed on the %s runtime: the etcd's StatefulSet and Service are not the job's objects, so %s leaves them running (and a suspended job's etcd runs all the same); give an etcd of your own with elastic.etcd (--etcd HOST:PORT)" % [
      outlives[0],
      runtime,
      { ttl: 'deleting the job at its TTL', deadline: 'failing the job at its deadline', suspend: 'suspending the job' }[outlives[0]],
    ];

    // -- case 6: MultiKueue runs only what Kueue queues --
    // The built-in controllers skip a job managed by another (job_controller.go, the JobSet and
    // Trainer controllers' managedBy checks), and Kueue's reconciler skips one without a queue
    // (pkg/controller/jobframework/reconciler.go, manageJobsWithoutQueueName off by default).
    assert managedBy != multikueue || has(job, 'kueueQueue') :
           'managedBy %s needs kueueQueue (--kueue-queue): the built-in controller leaves the job to MultiKueue, and Kueue acts only on a job with a queue (pkg/controller/jobframework/reconciler.go): nothing would ever run it' % multikueue;
    // -- case 7: MultiKueue copies one object to the worker cluster --
    assert managedBy != multikueue || runtime != 'kubernetes' :
           "managedBy %s cannot be expressed on the kubernetes runtime: MultiKueue copies only the Job to the worker cluster (pkg/controller/jobs/job/job_multikueue_adapter.go SyncJob), not the pods' ServiceAccount and RBAC nor the headless Service their names resolve through; use the jobset runtime (MultiKueue copies the JobSet, whose controller makes the Service)" % multikueue;
    assert managedBy != multikueue || !ownEtcd :
           "managedBy %s with the job's own etcd: MultiKueue copies only the job to the worker cluster, not the etcd's StatefulSet and Service; give an etcd the worker clusters reach with elastic.etcd (--etcd HOST:PORT)" % multikueue;

    // -- case 8: feature gates of the Kubernetes release --
    // JobManagedBy: alpha (off) in 1.30 and 1.31, beta and on from 1.32
    // (pkg/features/kube_features.go); with it off the apiserver drops spec.managedBy.
    assert runtime != 'kubernetes' || managedBy == null || atLeast(kube, [1, 32]) :
           "managedBy cannot be expressed on Kubernetes %s: the JobManagedBy gate is off by default before 1.32 (alpha in 1.30 and 1.31, pkg/features/kube_features.go) and the apiserver drops the Job's spec.managedBy, so the Job controller runs the job itself; give --kube-version 1.32 or newer" % util.get(releases, 'kubernetes');
    // SuspendJob: alpha (off) in 1.21, beta and on from 1.22.
    assert runtime != 'kubernetes' || !util.get(job, 'suspend', false) || atLeast(kube, [1, 22]) :
           "suspend cannot be expressed on Kubernetes %s: the SuspendJob gate is off by default before 1.22 (alpha in 1.21) and the apiserver drops the Job's spec.suspend, so the Job runs at once" % util.get(releases, 'kubernetes');

    // -- case 9: Trainer honours a TrainJob's managedBy from v2.3.0 (kubeflow/trainer#3632) --
    local trainer = minor(releases, 'trainer');
    assert runtime != 'kubeflow-trainer' || managedBy == null || atLeast(trainer, [2, 3]) :
           'managedBy needs Kubeflow Trainer 2.3 or newer, got %s: earlier TrainJob controllers do not read spec.managedBy (kubeflow/trainer#3632) and run the TrainJob themselves next to MultiKueue' % util.get(releases, 'trainer');

    // -- case 10: a gang larger than the job's pods is never met (a kubeflow PaddleJob's
    // schedulingPolicy.minAvailable is its PodGroup's minMember: training-operator v1.9.0
    // pkg/controller.v1/common/job.go ReconcileJobs) --
    local total = std.foldl(function(sum, r) sum + (if std.isObject(roles[r]) then util.get(roles[r], 'replicas', 0) else 0), std.objectFields(roles), 0);
    local gang = if has(job, 'volcano') && std.isObject(job.volcano) then util.get(job.volcano, 'minAvailable') else null;
    assert gang == null || !std.isNumber(gang) || gang <= total :
           'volcano.minAvailable (%d) is more than the %d pods of the job: the gang would never be met and no pod would start; give at most %d, or leave it out (every pod)' % [gang, total, total];

    // -- case 11: the queue label is kueueQueue's --
    assert !std.objectHas(util.get(job, 'labels', {}), 'kueue.x-k8s.io/queue-name') :
           "labels: kueue.x-k8s.io/queue-name is kueueQueue's (--kueue-queue), on the runtimes whose kind Kueue admits whole; as a label of every object it queues the wrong things: Kueue's pod integration queues each pod alone (no gang) on paddle-operator and volcano, and the etcd's or servers' StatefulSet apart from the trainers on kubernetes";
    true,
}
