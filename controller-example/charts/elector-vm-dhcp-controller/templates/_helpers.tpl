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


{{/* The ServiceAccount the controller runs as: serviceAccount.name, else ippool-controller. */}}
{{- define "evdc.serviceAccountName" -}}
{{- default (include "evdc.name" .) .Values.serviceAccount.name -}}
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
