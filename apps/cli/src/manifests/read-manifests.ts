import { readdirSync, statSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { CliError, EXIT } from '../exit-codes.ts';
import { readFileText, readStdin } from '../input/read-input.ts';
import { describeSyntaxError } from '../input/yaml-error.ts';

/** One document of `occ apply -f`: where it came from (for messages) and what it says. */
export interface ManifestDocument {
  /** `dir/a.yaml`, or `dir/a.yaml#2` for the second document of a file. */
  source: string;
  /** Where a path the document names (a Secret's `fromFile`) is relative to. */
  directory: string;
  body: Record<string, unknown>;
}

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);

/** `-f FILE`, `-f -` (standard input) or `-f DIR`: a directory's .yaml, .yml and .json files, by name, not its subdirectories. */
export async function readManifests(path: string): Promise<ManifestDocument[]> {
  if (path === '-') return parseManifest('(standard input)', process.cwd(), await readStdin());
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (error) {
    throw new CliError(`Cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`, EXIT.USAGE);
  }
  if (!isDirectory) return parseManifest(path, dirname(path), readFileText(path));
  const files = readdirSync(path)
    .filter((name) => MANIFEST_EXTENSIONS.has(extname(name).toLowerCase()))
    .sort()
    .map((name) => join(path, name));
  const documents = files.filter((file) => statSync(file).isFile()).flatMap((file) => parseManifest(file, path, readFileText(file)));
  if (documents.length === 0) throw new CliError(`${path} holds no .yaml, .yml or .json file with a document`, EXIT.USAGE);
  return documents;
}

/** Every document of a file (`---` separates them; JSON is YAML); empty ones (a trailing `---`) are skipped. */
function parseManifest(source: string, directory: string, text: string): ManifestDocument[] {
  const parsed = parseAllDocuments(text);
  const all = Array.isArray(parsed) ? parsed : [parsed];
  const documents: ManifestDocument[] = [];
  all.forEach((document, index) => {
    const error = document.errors[0];
    if (error) throw new CliError(describeSyntaxError(source, error), EXIT.USAGE);
    const body: unknown = document.toJS();
    if (body === null || body === undefined) return;
    const where = all.length > 1 ? `${source}#${index + 1}` : source;
    if (typeof body !== 'object' || Array.isArray(body)) throw new CliError(`${where} must hold one object (a mapping) per document`, EXIT.USAGE);
    documents.push({ source: where, directory, body: body as Record<string, unknown> });
  });
  return documents;
}
