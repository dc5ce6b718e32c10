{{/* Chart name. */}}
{{- define "ppay.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Release fullname; component objects are "<fullname>-<component>". */}}
{{- define "ppay.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* "<fullname>-<component>", kept within DNS label length. Args: (dict "root" $ "name" $name) */}}
{{- define "ppay.componentFullname" -}}
{{- printf "%s-%s" (include "ppay.fullname" .root | trunc (int (sub 62 (len .name)))) .name | trimSuffix "-" -}}
{{- end -}}

{{- define "ppay.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* Labels shared by every object of the release. */}}
{{- define "ppay.labels" -}}
helm.sh/chart: {{ include "ppay.chart" . }}
app.kubernetes.io/name: {{ include "ppay.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/part-of: partner-payments
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
{{- end -}}

{{/* Selector labels of every pod of the release. */}}
{{- define "ppay.selectorLabels" -}}
app.kubernetes.io/name: {{ include "ppay.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Selector labels of one component. Args: (dict "root" $ "name" $name) */}}
{{- define "ppay.componentSelectorLabels" -}}
{{ include "ppay.selectorLabels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "ppay.componentLabels" -}}
{{ include "ppay.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* A component's effective values: componentDefaults deep-merged with its own. Returns YAML. */}}
{{- define "ppay.component" -}}
{{- $defaults := deepCopy .root.Values.componentDefaults -}}
{{- toYaml (mustMergeOverwrite $defaults (deepCopy .values)) -}}
{{- end -}}

{{- define "ppay.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "ppay.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "ppay.secretName" -}}
{{- default (printf "%s-secrets" (include "ppay.fullname" .)) .Values.secrets.existingSecret -}}
{{- end -}}

{{- define "ppay.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}
{{- end -}}

{{/* The gRPC services (every component but the gateway), sorted. */}}
{{- define "ppay.grpcComponents" -}}
{{- $out := list -}}
{{- range $name, $c := .Values.components -}}
{{- if eq $c.kind "grpc" -}}{{- $out = append $out $name -}}{{- end -}}
{{- end -}}
{{- toJson $out -}}
{{- end -}}

{{/*
Non-secret environment of one component (ConfigMap data). Args: (dict "root" $ "name" $name "values" $values)
*/}}
{{- define "ppay.componentConfig" -}}
{{- $root := .root -}}
{{- $c := include "ppay.component" . | fromYaml -}}
{{- $cfg := $root.Values.config -}}
{{- $env := dict
  "LOG_LEVEL" $cfg.logLevel
  "SHUTDOWN_TIMEOUT_MS" (toString (int $cfg.shutdownTimeoutMs))
  "NATS_URL" $root.Values.nats.url
  "METRICS_HOST" "0.0.0.0"
  "METRICS_PORT" (toString (int $c.ports.metrics))
  "NODE_ENV" "production"
-}}
{{- if $cfg.otlpEndpoint -}}
{{- $_ := set $env "OTEL_EXPORTER_OTLP_ENDPOINT" $cfg.otlpEndpoint -}}
{{- end -}}
{{- if eq $c.kind "grpc" -}}
{{- $_ := set $env "GRPC_HOST" "0.0.0.0" -}}
{{- $_ := set $env "GRPC_PORT" (toString (int $c.ports.grpc)) -}}
{{- $_ := set $env "MONGODB_DB" (printf "%sppay_%s" $root.Values.mongodb.databasePrefix (.name | replace "-" "_")) -}}
{{- if has "SECRETS_ENCRYPTION_KEY" ($c.secretEnv | default list) -}}
{{- $_ := set $env "SECRETS_ENCRYPTION_KEY_ID" $root.Values.secrets.encryptionKeyId -}}
{{- end -}}
{{- else -}}
{{- $gw := $root.Values.gateway -}}
{{- $_ := set $env "HOST" "0.0.0.0" -}}
{{- $_ := set $env "PORT" (toString (int $c.ports.http)) -}}
{{- $_ := set $env "PUBLIC_BASE_URL" $gw.publicBaseUrl -}}
{{- $_ := set $env "TRUST_PROXY" (toString $gw.trustProxy) -}}
{{- $_ := set $env "AUTH_JWT_ISSUER" $gw.auth.issuer -}}
{{- $_ := set $env "AUTH_JWT_AUDIENCE" $gw.auth.audience -}}
{{- $_ := set $env "AUTH_ADMIN_AUDIENCE" $gw.auth.adminAudience -}}
{{- $_ := set $env "AUTH_ADMIN_REQUIRED_ACR" $gw.auth.adminRequiredAcr -}}
{{- $_ := set $env "AUTH_ADMIN_MAX_AGE_SECONDS" (toString (int $gw.auth.adminMaxAgeSeconds)) -}}
{{- if $gw.auth.jwksUrl -}}
{{- $_ := set $env "AUTH_JWKS_URL" $gw.auth.jwksUrl -}}
{{- end -}}
{{- $_ := set $env "BREAKER_ERROR_THRESHOLD_PERCENT" (toString (int $gw.breaker.errorThresholdPercent)) -}}
{{- $_ := set $env "BREAKER_RESET_TIMEOUT_MS" (toString (int $gw.breaker.resetTimeoutMs)) -}}
{{- $_ := set $env "BREAKER_ROLLING_WINDOW_MS" (toString (int $gw.breaker.rollingWindowMs)) -}}
{{- $_ := set $env "BREAKER_VOLUME_THRESHOLD" (toString (int $gw.breaker.volumeThreshold)) -}}
{{- $_ := set $env "APIKEY_CACHE_TTL_MS" (toString (int $gw.apiKeyCache.ttlMs)) -}}
{{- $_ := set $env "APIKEY_CACHE_NEGATIVE_TTL_MS" (toString (int $gw.apiKeyCache.negativeTtlMs)) -}}
{{- $_ := set $env "APIKEY_CACHE_MAX_ENTRIES" (toString (int $gw.apiKeyCache.maxEntries)) -}}
{{- $_ := set $env "RATE_LIMIT_LIVE_PER_SECOND" (toString (int $gw.rateLimits.livePerSecond)) -}}
{{- $_ := set $env "RATE_LIMIT_SANDBOX_PER_SECOND" (toString (int $gw.rateLimits.sandboxPerSecond)) -}}
{{- $_ := set $env "RATE_LIMIT_DASHBOARD_PER_SECOND" (toString (int $gw.rateLimits.dashboardPerSecond)) -}}
{{- $_ := set $env "RATE_LIMIT_ANONYMOUS_PER_SECOND" (toString (int $gw.rateLimits.anonymousPerSecond)) -}}
{{- end -}}
{{- /* Where every component finds each service (the gateway, and services calling each other, e.g.
     payments → fx-pricing and marketplace): <SERVICE>_GRPC_ADDR=<service DNS name>:<gRPC port> */ -}}
{{- range $svc, $sv := $root.Values.components -}}
{{- $s := include "ppay.component" (dict "root" $root "values" $sv) | fromYaml -}}
{{- if eq $s.kind "grpc" -}}
{{- $_ := set $env (printf "%s_GRPC_ADDR" ($svc | upper | replace "-" "_")) (printf "%s:%d" (include "ppay.componentFullname" (dict "root" $root "name" $svc)) (int $s.ports.grpc)) -}}
{{- end -}}
{{- end -}}
{{- range $k, $v := $cfg.extraEnv -}}
{{- $_ := set $env $k (toString $v) -}}
{{- end -}}
{{- range $k, $v := $c.env -}}
{{- $_ := set $env $k (toString $v) -}}
{{- end -}}
{{- range $k := keys $env | sortAlpha }}
{{ $k }}: {{ get $env $k | quote }}
{{- end -}}
{{- end -}}
