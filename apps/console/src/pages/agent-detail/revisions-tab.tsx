import type { AgentTabProps } from './agent-detail-page.tsx';

// PLACEHOLDER — being built (issue 13).
export function RevisionsTab(_props: AgentTabProps) {
  return <p>Not built yet.</p>;
}
