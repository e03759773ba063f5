// PLACEHOLDER — being built (issue 13).
export function ConfigurationEditPage({ ns, configurationId }: { ns: string; configurationId: string | null }) {
  void ns;
  return <p>Not built yet.</p>;
}
