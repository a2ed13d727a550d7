import type { Command, Option } from 'commander';

/** `-t <tenant>` for an option: its short flag (else the long one) and its value. */
function optionTerm(opt: Option): string {
  const value = opt.flags.match(/[<[].*[>\]]/)?.[0];
  const term = [opt.short ?? opt.long, value].filter(Boolean).join(' ');
  return opt.mandatory ? term : `[${term}]`;
}

function leafLines(cmd: Command, path: string[]): Array<[string, string]> {
  const here = [...path, cmd.name()];
  if (cmd.commands.length) return cmd.commands.flatMap((c) => leafLines(c, here));
  const opts = cmd.options.filter((o) => o.long !== '--help').map(optionTerm);
  const args = cmd.registeredArguments.map((a) => {
    const name = `${a.name()}${a.variadic ? '...' : ''}`;
    return a.required ? `<${name}>` : `[${name}]`;
  });
  return [[[...here, ...args, ...opts].join(' '), cmd.description()]];
}

/**
 * Every command with its arguments and options, one line each, built from the program itself so
 * the root help never drifts from what the parser accepts (`fw <group> --help` has the details).
 */
export function overview(program: Command): string {
  const lines = program.commands.flatMap((c) => leafLines(c, [program.name()]));
  const width = Math.max(...lines.map(([term]) => term.length));
  return `\nCommands:\n${lines.map(([term, desc]) => `  ${term.padEnd(width)}  ${desc}`).join('\n')}\n`;
}
