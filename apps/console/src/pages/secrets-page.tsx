// PLACEHOLDER — being built (issue 13).
export function SecretsPage({ ns }: { ns: string }) {
  void ns;
  return <p>Not built yet.</p>;
}
