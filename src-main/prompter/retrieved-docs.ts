import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { logError } from '../common/log';
import { headOf } from '../common/text-head';

export interface RetrievedDoc {
  source: string;
  text: string;
}

export interface DocsRetriever {
  retrieve(query: string, limit: number): RetrievedDoc[];
}

const WORD = /[\p{L}\p{N}]{3,}/gu;
const MAX_FILE_BYTES = 256 * 1024;

function words(text: string): string[] {
  return (text.toLowerCase().match(WORD) ?? []) as string[];
}

/**
 * Help documents the user keeps in `<dataDir>/docs` (Markdown or text), split into paragraphs and
 * scored by the request's words: a small, local, dependency-free retrieval.
 */
export class LocalDocsRetriever implements DocsRetriever {
  private readonly paragraphs: Array<RetrievedDoc & { words: Set<string> }> = [];

  constructor(folder: string) {
    let names: string[] = [];
    try {
      names = readdirSync(folder);
    } catch (error) {
      // No docs folder is the usual case; one that is there but cannot be read is worth a word.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
        logError(`[deskhand] the documents in ${folder} cannot be read: ${error instanceof Error ? error.message : String(error)}`);
      }
      return;
    }
    for (const name of names.sort()) {
      if (!['.md', '.txt'].includes(extname(name).toLowerCase())) continue;
      const path = join(folder, name);
      // One unreadable file (a broken link, no permission) costs only itself, never the start-up.
      try {
        this.add(name, path);
      } catch (error) {
        logError(`[deskhand] skipped the document ${path}: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  private add(name: string, path: string): void {
    const info = statSync(path);
    if (!info.isFile() || info.size > MAX_FILE_BYTES) return;
    for (const paragraph of readFileSync(path, 'utf8').split(/\n\s*\n/)) {
      const text = paragraph.trim();
      if (text) this.paragraphs.push({ source: name, text, words: new Set(words(text)) });
    }
  }

  retrieve(query: string, limit: number): RetrievedDoc[] {
    const wanted = new Set(words(query));
    if (!wanted.size) return [];
    return this.paragraphs
      .map((paragraph) => ({ paragraph, score: [...wanted].filter((word) => paragraph.words.has(word)).length }))
      .filter((entry) => entry.score > 0)
      .sort((a, b) => b.score - a.score)
      .slice(0, limit)
      .map(({ paragraph }) => ({ source: paragraph.source, text: paragraph.text }));
  }
}

/** The documents part of a prompt, as data. */
export function renderDocs(docs: readonly RetrievedDoc[]): string {
  if (!docs.length) return '';
  const body = docs.map((doc) => `[${doc.source}]\n${headOf(doc.text, 1_500).replace(/</g, '‹')}`).join('\n\n');
  return `## Documents that may help\n<data name="documents">\n${body}\n</data>\n`;
}
