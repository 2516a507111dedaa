import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { LocalDocsRetriever, renderDocs } from '../../src-main/prompter/retrieved-docs';

function docsFolder(): string {
  const folder = join(mkdtempSync(join(tmpdir(), 'deskhand-docs-')), 'docs');
  mkdirSync(folder);
  return folder;
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('LocalDocsRetriever', () => {
  it('finds the paragraphs that share the most words with the query', () => {
    const folder = docsFolder();
    writeFileSync(join(folder, 'expenses.md'), 'Expense reports go to finance before Friday.\n\nLunch is at noon.');
    writeFileSync(join(folder, 'ignored.pdf'), 'expense reports');
    const found = new LocalDocsRetriever(folder).retrieve('where do expense reports go', 2);
    expect(found).toEqual([{ source: 'expenses.md', text: 'Expense reports go to finance before Friday.' }]);
    expect(renderDocs(found)).toContain('<data name="documents">\n[expenses.md]\nExpense reports go to finance');
  });

  it('skips a file it cannot read (a broken symlink) with a warning, and keeps the others', () => {
    const folder = docsFolder();
    writeFileSync(join(folder, 'expenses.md'), 'Expense reports go to finance before Friday.');
    symlinkSync(join(folder, 'gone.md'), join(folder, 'notes.md'));
    const warn = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const retriever = new LocalDocsRetriever(folder);
    expect(retriever.retrieve('expense reports', 2).map((doc) => doc.source)).toEqual(['expenses.md']);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/skipped the document .*notes\.md: .*ENOENT/);
  });

  it('has nothing to offer when the folder does not exist, and says nothing of it', () => {
    const warn = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(new LocalDocsRetriever(join(tmpdir(), 'deskhand-no-such-folder', 'docs')).retrieve('anything at all', 2)).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
  });

  it('says so when the docs folder is there but cannot be read (here a file, not a folder)', () => {
    const docs = join(mkdtempSync(join(tmpdir(), 'deskhand-docs-')), 'docs');
    writeFileSync(docs, 'not a folder');
    const warn = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    expect(new LocalDocsRetriever(docs).retrieve('anything at all', 2)).toEqual([]);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/the documents in .*docs cannot be read: .*ENOTDIR/);
  });
});
