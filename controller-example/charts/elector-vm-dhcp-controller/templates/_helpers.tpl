{{/* The app.kubernetes.io/name label: nameOverride, else ippool-controller. */}}
{{- define "evdc.name" -}}
{{- default "ippool-controller" .Values.nameOverride | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{/*
The names of the chart's own objects (Deployment, ServiceAccount, RBAC, metrics Service):
fullnameOverride, else nameOverride, else ippool-controller. Names the controller itself uses stay
as they are: its Lease ippool-controller, the webhook Service and configurations, and the agents'
Deployments, ServiceAccount and Roles.
*/}}
{{- define "evdc.fullname" -}}
{{- default (include "evdc.name" .) .Values.fullnameOverride | trunc 52 | trimSuffix "-" -}}
{{- end -}}

{{- define "evdc.labels" -}}
app.kubernetes.io/name: {{ include "evdc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "evdc.selector" -}}
app.kubernetes.io/name: {{ include "evdc.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}


{{/* The ServiceAccount the controller runs as: serviceAccount.name, else evdc.fullname. */}}
{{- define "evdc.serviceAccountName" -}}
{{- default (include "evdc.fullname" .) .Values.serviceAccount.name -}}
{{- end -}}

{{/* Values renamed to upstream's names: a clear error instead of a silently ignored value. */}}
{{- define "evdc.checkValues" -}}
{{- if hasKey .Values "replicas" -}}
{{- fail "the value replicas is now replicaCount (harvester-vm-dhcp-controller's name): set replicaCount instead" -}}
{{- end -}}
{{- if hasKey .Values.webhook "port" -}}
{{- fail "the value webhook.port is now webhook.httpsPort (harvester-vm-dhcp-controller's name): set webhook.httpsPort instead" -}}
{{- end -}}
{{- end -}}
