"""Owner `certificates`: the apiserver's validation of CertificateSigningRequests beyond their
schema (k8s.io/kubernetes pkg/apis/certificates/validation/validation.go,
ValidateCertificateSigningRequestCreate, v1.31; schemas/ledger/certificates-certificatesigningrequest.json).
The status is dropped on create (the strategy's PrepareForCreate), so its checks never run there."""

from __future__ import annotations

import base64
import binascii
import re

from generator.core.findings import Finding
from generator.validate.rules.base import as_int, as_list, error, value_text
from generator.validate.rules.pod_gated import signer_name_problem

RULE = "certificate-signing-request"

# allValidUsages (the KeyUsage constants of pkg/apis/certificates/types.go)
USAGES = frozenset(
    {
        "signing",
        "digital signature",
        "content commitment",
        "key encipherment",
        "key agreement",
        "data encipherment",
        "cert sign",
        "crl sign",
        "encipher only",
        "decipher only",
        "any",
        "server auth",
        "client auth",
        "code signing",
        "email protection",
        "s/mime",
        "ipsec end system",
        "ipsec tunnel",
        "ipsec user",
        "timestamping",
        "ocsp signing",
        "microsoft sgc",
        "netscape sgc",
    }
)
LEGACY_SIGNER = "kubernetes.io/legacy-unknown"  # LegacyUnknownSignerName: not via certificates.k8s.io/v1
MIN_EXPIRATION = 600  # "may not specify a duration less than 600 seconds (10 minutes)"

_PEM_BLOCK = re.compile(rb"(?:^|\n)-----BEGIN ([^\n]*?)-----[ \t\r]*\n(.*?)\n-----END \1-----", re.S)


def _first_pem_type(data: bytes) -> str | None:
    """The type of the first block encoding/pem.Decode accepts (its body base64 once spaces,
    tabs and line breaks are gone; a block of headers, 'Key: value' lines up to a blank line, is
    skipped); None if there is none."""
    for match in _PEM_BLOCK.finditer(data):
        body = match[2]
        head, blank, rest = body.partition(b"\n\n")
        if blank and b":" in head.split(b"\n", 1)[0]:
            body = rest
        try:
            base64.b64decode(re.sub(rb"[ \t\r\n]", b"", body), validate=True)
        except (binascii.Error, ValueError):
            continue
        return match[1].decode("utf-8", "replace")
    return None


def _request_problem(request: str) -> str | None:
    """certificates.ParseCSR's first step: the request's bytes (the field's base64, which decoding
    reads) hold a PEM block, and the first is a CERTIFICATE REQUEST. The DER inside and its
    signature (x509.ParseCertificateRequest, CheckSignature) are not checked here."""
    try:
        data = base64.b64decode(re.sub(r"[\r\n]", "", request), validate=True)
    except (binascii.Error, ValueError):
        return None  # not base64: the field cannot be decoded, the schema's finding
    kind = _first_pem_type(data)
    if kind is None:
        return "the request holds no PEM block: PEM block type must be CERTIFICATE REQUEST"
    if kind != "CERTIFICATE REQUEST":
        return f"PEM block type must be CERTIFICATE REQUEST, not {kind!r}"
    return None


def csr_findings(obj: dict, releases: tuple[int, ...]) -> list[Finding]:
    """validateCertificateSigningRequest on create: the request a PEM CERTIFICATE REQUEST block,
    usages given, each known and once, the signerName a signer's (ValidateSignerName) and not the
    legacy one, expirationSeconds at least 600."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return []  # no spec, or another type: the schema's finding
    out = []
    request = spec.get("request")
    if isinstance(request, str) and (problem := _request_problem(request)):
        out.append(error("spec.request", RULE, problem))
    usages = spec.get("usages")
    if usages is None or usages == []:
        out.append(error("spec.usages", RULE, "usages are required (e.g. digital signature, client auth)"))
    seen = set()
    for i, usage in enumerate(as_list(usages)):
        if not isinstance(usage, str):
            continue  # another type: the schema's finding
        if usage not in USAGES:
            message = f"usage {value_text(usage)} is not supported: {', '.join(sorted(USAGES))}"
            out.append(error(f"spec.usages[{i}]", RULE, message))
        if usage in seen:
            out.append(error(f"spec.usages[{i}]", RULE, f"usage {value_text(usage)} is listed twice"))
        seen.add(usage)
    signer = spec.get("signerName")
    if signer == LEGACY_SIGNER:
        message = f"the legacy signerName {LEGACY_SIGNER!r} is not allowed via certificates.k8s.io/v1"
        out.append(error("spec.signerName", RULE, message))
    elif signer == "":
        out.append(error("spec.signerName", RULE, "signerName is required (e.g. kubernetes.io/kube-apiserver-client)"))
    elif isinstance(signer, str) and (problem := signer_name_problem(signer)):
        out.append(error("spec.signerName", RULE, problem))
    seconds = as_int(spec.get("expirationSeconds"))
    if seconds is not None and seconds < MIN_EXPIRATION:
        message = f"expirationSeconds {seconds} may not be less than 600 seconds (10 minutes)"
        out.append(error("spec.expirationSeconds", RULE, message))
    return out
