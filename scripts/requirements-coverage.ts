// Refreshes the "proved by" column of docs/requirements.md from the ids test titles cite
// (`it('[N-7] …')`). `npm run requirements` rewrites the file; the unit test
// (test/requirements-coverage.test.ts) fails when the document has drifted from the tests.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const REQUIREMENTS_PATH = join(REPO_ROOT, 'docs/requirements.md');
const SEARCHED = ['apps', 'packages', 'test', 'scripts'];
const ROW = /^\| ([A-Z]-\d+) \| (.*) \| (.*) \|$/;
const CITATION = /\[([A-Z]-\d+)\]/g;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) return [];
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Requirement id → the test files (repository-relative, sorted) whose text cites it. */
export function citations(root = REPO_ROOT): Map<string, string[]> {
  const cited = new Map<string, Set<string>>();
  for (const file of SEARCHED.flatMap((dir) => testFiles(join(root, dir)))) {
    for (const [, id] of readFileSync(file, 'utf8').matchAll(CITATION)) {
      const files = cited.get(id!) ?? new Set<string>();
      files.add(relative(root, file));
      cited.set(id!, files);
    }
  }
  return new Map([...cited].map(([id, files]) => [id, [...files].sort()]));
}

/** The document with every row's last column recomputed; an uncited row keeps its "not yet proved …" note. */
export function refreshed(document: string, cited: Map<string, string[]>): string {
  return document
    .split('\n')
    .map((line) => {
      const row = ROW.exec(line);
      if (!row) return line;
      const [, id, text, previous] = row;
      const files = cited.get(id!) ?? [];
      const cell = files.length > 0 ? files.map((f) => `\`${f}\``).join(', ') : previous!.startsWith('not yet proved') ? previous! : 'not yet proved';
      return `| ${id} | ${text} | ${cell} |`;
    })
    .join('\n');
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const before = readFileSync(REQUIREMENTS_PATH, 'utf8');
  const after = refreshed(before, citations());
  writeFileSync(REQUIREMENTS_PATH, after);
  console.log(before === after ? 'docs/requirements.md is current' : 'docs/requirements.md refreshed');
}
