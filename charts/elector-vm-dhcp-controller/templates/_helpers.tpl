{{/* The controller's name: its Deployment, ServiceAccount, Lease and RBAC objects. */}}
{{- define "evdc.name" -}}ippool-controller{{- end -}}

{{- define "evdc.labels" -}}
app.kubernetes.io/name: ippool-controller
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end -}}

{{- define "evdc.selector" -}}
app.kubernetes.io/name: ippool-controller
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}
