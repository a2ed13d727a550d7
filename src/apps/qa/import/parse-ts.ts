import type { SourceFile } from 'typescript/unstable/ast';
import { createVirtualFileSystem } from 'typescript/unstable/fs';
import { API, DiagnosticCategory } from 'typescript/unstable/sync';

/**
 * Parses TypeScript source with the TypeScript compiler. TypeScript 7 (the native compiler, which
 * this repository uses) no longer ships the in-process `ts.createSourceFile`: its API runs the
 * bundled compiler as a child process and hands back the syntax tree. The source is served from
 * a virtual file system in a one-file project (no lib, no module resolution), so nothing on disk
 * is read; the process is closed before returning (the tree stays usable).
 */
const ROOT = '/__fw_qa_import__';
const CONFIG = `${ROOT}/tsconfig.json`;
const FILE = `${ROOT}/script.ts`;

export interface ParsedSource {
  sourceFile: SourceFile;
  /** Syntax errors, in source order. */
  syntaxErrors: { pos: number; message: string }[];
}

export function parseTypeScript(source: string): ParsedSource {
  const api = new API({
    cwd: ROOT,
    fs: createVirtualFileSystem({
      [CONFIG]: JSON.stringify({ compilerOptions: { noLib: true, noResolve: true, types: [], allowJs: false }, files: ['script.ts'] }),
      [FILE]: source,
    }),
  });
  try {
    const snapshot = api.updateSnapshot({ openProjects: [CONFIG] });
    const project = snapshot.getProject(CONFIG) ?? snapshot.getProjects()[0];
    const sourceFile = project?.program.getSourceFile(FILE);
    if (!project || !sourceFile) throw new Error('the TypeScript compiler returned no syntax tree for the script');
    const syntaxErrors = project.program.getSyntacticDiagnostics(FILE)
      .filter((d) => d.category === DiagnosticCategory.Error)
      .map((d) => ({ pos: d.pos, message: d.text }))
      .sort((a, b) => a.pos - b.pos);
    return { sourceFile, syntaxErrors };
  } finally {
    api.close();
  }
}
