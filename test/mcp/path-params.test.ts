/** Every tool parameter that names a file or a directory is held to the server's roots (declared in files or dirs). */
import { describe, expect, it } from 'vitest';
import { EVIDENCE_RUN, TOOLS } from '../../src/mcp/tools.js';

describe('path parameters', () => {
  it.each([...TOOLS, EVIDENCE_RUN].map((t) => [t.name, t] as const))(
    '%s: every path parameter is confined',
    (_name, tool) => {
      const params = Object.keys(tool.input._zod.def.shape);
      const paths = params.filter((p) => /(^|_)(file|dir|directory|path|cwd)$/.test(p));
      expect([...(tool.files ?? []), ...(tool.dirs ?? [])].sort()).toEqual(paths.sort());
    },
  );

  it('evidence_add reads artifact_file and evidence_run works in cwd', () => {
    expect(TOOLS.find((t) => t.name === 'evidence_add')?.files).toEqual(['artifact_file']);
    expect(EVIDENCE_RUN.dirs).toEqual(['cwd']);
  });
});
