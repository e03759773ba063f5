/**
 * The defaults the real API server fills in on write, for the fields a driver reads back or
 * compares. Not every default of every kind: the ones a Deployment, Service, Secret and
 * NetworkPolicy of a driver meet.
 */
export function applyDefaults(kind: string, object: any): void {
  switch (kind) {
    case 'Deployment':
      return deploymentDefaults(object);
    case 'Service':
      return serviceDefaults(object);
    case 'Secret':
      object.type ??= 'Opaque';
      return;
    case 'NetworkPolicy': {
      const spec = (object.spec ??= {});
      spec.podSelector ??= {};
      spec.policyTypes ??= ['Ingress', ...(spec.egress ? ['Egress'] : [])];
      return;
    }
  }
}

function deploymentDefaults(object: any): void {
  const spec = (object.spec ??= {});
  spec.replicas ??= 1;
  spec.revisionHistoryLimit ??= 10;
  spec.progressDeadlineSeconds ??= 600;
  spec.strategy ??= { type: 'RollingUpdate' };
  if (spec.strategy.type === 'RollingUpdate') spec.strategy.rollingUpdate ??= { maxUnavailable: '25%', maxSurge: '25%' };
  const pod = (spec.template ??= {}).spec ?? (spec.template.spec = {});
  pod.restartPolicy ??= 'Always';
  pod.terminationGracePeriodSeconds ??= 30;
  pod.dnsPolicy ??= 'ClusterFirst';
  pod.schedulerName ??= 'default-scheduler';
  pod.securityContext ??= {};
  for (const container of [...(pod.containers ?? []), ...(pod.initContainers ?? [])]) {
    container.imagePullPolicy ??= String(container.image ?? '').endsWith(':latest') || !String(container.image ?? '').includes(':') ? 'Always' : 'IfNotPresent';
    container.terminationMessagePath ??= '/dev/termination-log';
    container.terminationMessagePolicy ??= 'File';
    container.resources ??= {};
    for (const port of container.ports ?? []) port.protocol ??= 'TCP';
  }
  for (const volume of pod.volumes ?? []) {
    if (volume.configMap) volume.configMap.defaultMode ??= 420;
    if (volume.secret) volume.secret.defaultMode ??= 420;
    if (volume.projected) volume.projected.defaultMode ??= 420;
  }
}

let nextClusterIp = 1;

function serviceDefaults(object: any): void {
  const spec = (object.spec ??= {});
  spec.type ??= 'ClusterIP';
  spec.sessionAffinity ??= 'None';
  spec.internalTrafficPolicy ??= 'Cluster';
  spec.ipFamilies ??= ['IPv4'];
  spec.ipFamilyPolicy ??= 'SingleStack';
  if (spec.clusterIP === undefined) {
    const n = nextClusterIp++;
    spec.clusterIP = `10.96.${(n >> 8) & 255}.${n & 255}`;
  }
  spec.clusterIPs ??= spec.clusterIP === 'None' ? ['None'] : [spec.clusterIP];
  for (const port of spec.ports ?? []) {
    port.protocol ??= 'TCP';
    port.targetPort ??= port.port;
  }
}
