import { Closed, ListOf, ListQuerySchema } from '../common.ts';
import { Type } from '@sinclair/typebox';
import { AgentDriftSchema } from '../resources/agent-drift.ts';
import { DeployDryRunSchema, DeployRequestSchema, DeployUnchangedSchema } from '../resources/deploy-options.ts';
import { DeploymentEventDataSchema } from '../resources/deployment-events.ts';
import { AgentRevisionViewSchema, DeploymentStatusSchema, StopResultSchema } from '../resources/revision.ts';
import { RuntimeLogsQuerySchema, RuntimeLogsSchema } from '../resources/runtime-logs.ts';
import { RuntimeViewSchema } from '../resources/runtime-view.ts';
import { NsChildParams, PathId } from './params.ts';
import { MUTATION_ERRORS, READ_ERRORS, type RouteContract, type RoutePermission } from './route-contract.ts';

const RevisionParams = Closed({ ns: PathId, id: PathId, rev: PathId });
const onAgent = (action: 'read' | 'deploy' | 'operate'): RoutePermission => ({
  actions: [action],
  resourceKind: 'agent',
  target: { scope: 'child', idParam: 'id' },
  mode: 'exact',
});
const agentPath = '/namespaces/:ns/agents/:id';

export const deploymentRoutes = [
  {
    operationId: 'deployAgent',
    method: 'POST',
    path: `${agentPath}/deploy`,
    tag: 'deployments',
    summary:
      "Admit the Agent's desired state as a new immutable AgentRevision and queue its deployment (202). Optional body: `fromRevision` (id or number) admits that older revision's snapshot as a new revision (rollback: the Agent's desired state becomes that snapshot, so the next plain deploy keeps it); `dryRun: true` runs every admission check and answers 200 with the revision it would admit and the native configuration the runtime would write, writing nothing. A deploy whose snapshot equals the active revision's (which is also the newest) answers 200 `{unchanged: true, revision}` and admits nothing, unless `restart: true`.",
    auth: 'api_key',
    successStatus: 202,
    errors: MUTATION_ERRORS,
    audit: 'agents.deploy',
    permission: onAgent('deploy'),
    optionalBody: true,
    alternativeSuccess: {
      status: 200,
      data: Type.Union([DeployDryRunSchema, DeployUnchangedSchema]),
      description: 'Dry run (`dryRun: true`), or nothing changed (`unchanged: true`, the active revision): no revision was admitted.',
    },
    schemas: { params: NsChildParams, body: DeployRequestSchema, data: AgentRevisionViewSchema },
  },
  {
    operationId: 'getAgentDrift',
    method: 'GET',
    path: `${agentPath}/drift`,
    tag: 'deployments',
    summary:
      "How the Agent's desired state (what a plain deploy would admit) differs from its active revision: plugins added, removed or changed, approvers, harness auth, the Configuration (binding or generation) and the ComputeDriver. `inSync` when nothing differs.",
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: onAgent('read'),
    schemas: { params: NsChildParams, data: AgentDriftSchema },
  },
  {
    operationId: 'stopAgent',
    method: 'POST',
    path: `${agentPath}/stop`,
    tag: 'deployments',
    summary: 'Stop the Agent: its desired state becomes stopped and a worker clears the active revision (202).',
    auth: 'api_key',
    successStatus: 202,
    errors: MUTATION_ERRORS,
    audit: 'agents.stop',
    permission: onAgent('operate'),
    schemas: { params: NsChildParams, data: StopResultSchema },
  },
  {
    operationId: 'listAgentRevisions',
    method: 'GET',
    path: `${agentPath}/revisions`,
    tag: 'deployments',
    summary: 'List the AgentRevisions (newest first). A Configuration snapshot the caller may not read is withheld (`configuration.withheld: true`).',
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: onAgent('read'),
    schemas: { params: NsChildParams, querystring: ListQuerySchema, data: ListOf(AgentRevisionViewSchema) },
  },
  {
    operationId: 'getAgentRevision',
    method: 'GET',
    path: `${agentPath}/revisions/:rev`,
    tag: 'deployments',
    summary:
      'Get one frozen AgentRevision. Its Configuration snapshot (values, Secret bindings) needs `configuration:read` on that Configuration; otherwise `configuration.withheld: true`.',
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: onAgent('read'),
    schemas: { params: RevisionParams, data: AgentRevisionViewSchema },
  },
  {
    operationId: 'getDeploymentStatus',
    method: 'GET',
    path: `${agentPath}/deployments/:rev`,
    tag: 'deployments',
    summary: "A revision's deployment status, projected from stored rows (no live probe).",
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: onAgent('read'),
    schemas: { params: RevisionParams, data: DeploymentStatusSchema },
  },
  {
    operationId: 'streamDeploymentEvents',
    method: 'GET',
    path: `${agentPath}/deployments/:rev/events`,
    tag: 'deployments',
    summary:
      "The deployment's progress as Server-Sent Events (admitted, claimed, each runtime startup step, warnings, the outcome), then the stream ends. Resumable with `Last-Event-ID`; bounded per connection (10 min, 500 events; a keep-alive comment every 15 s). An unknown revision is 404 before the stream starts.",
    auth: 'api_key',
    successStatus: 200,
    errors: READ_ERRORS,
    permission: onAgent('read'),
    produces: 'text/event-stream',
    schemas: { params: RevisionParams, data: DeploymentEventDataSchema },
  },
  {
    operationId: 'getRuntimeView',
    method: 'GET',
    path: `${agentPath}/deployments/:rev/runtime`,
    tag: 'deployments',
    summary:
      "What runs for the revision now, read live from the ComputeDriver and never stored (unlike the deployment status, the recorded result of the deploy). Delivered Secret variable names need `configuration:read` on the revision's Configuration (otherwise `deliveredSecrets: null`); 501 when the driver cannot describe runtimes.",
    auth: 'api_key',
    successStatus: 200,
    errors: [...READ_ERRORS, 501],
    permission: onAgent('read'),
    schemas: { params: RevisionParams, data: RuntimeViewSchema },
  },
  {
    operationId: 'getRuntimeLogs',
    method: 'GET',
    path: `${agentPath}/deployments/:rev/runtime/logs`,
    tag: 'deployments',
    summary: "The last lines of the revision's runtime log (`tail` 1–1000, default 100; bounded by the ComputeDriver; 501 when it keeps none).",
    auth: 'api_key',
    successStatus: 200,
    errors: [...READ_ERRORS, 501],
    permission: onAgent('read'),
    schemas: { params: RevisionParams, querystring: RuntimeLogsQuerySchema, data: RuntimeLogsSchema },
  },
] as const satisfies readonly RouteContract[];
