/**
 * The `fw` program (src/cli.ts on commander): help is a success and lists every command; a bare
 * `fw`, an unknown command, an unknown option, an option without its value or a missing required
 * option is a usage error (exit code 1, commander's message naming it) and runs nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { fw } from './run.ts';

const env = { DATA_DIR: path.join(path.resolve(import.meta.dirname, '../..'), '.tmp', 'cli-args-never-written') };
const COMMANDS = [
  'fw serve', 'fw generate', 'fw migrate generate -m <description> --app <app>', 'fw migrate upgrade [-t <tenant>]',
  'fw tenant create [keys...] [--from-file <file>]', 'fw tenant list', 'fw events drain [-t <tenant>]',
  'fw mcp [-t <tenant>] [--token <token>]', 'fw e2e [args...]',
];

describe('fw program: help and usage errors', () => {
  it('--help and -h exit 0 and list every command with its options; a bare `fw` is a usage error (exit 1, the help on stderr)', async () => {
    const [help, h, none, group] = await Promise.all([fw(env, '--help'), fw(env, '-h'), fw(env), fw(env, 'tenant')]);
    for (const r of [help, h]) {
      expect(r.code, r.stderr).toBe(0);
      for (const line of COMMANDS) expect(r.stdout).toContain(line);
    }
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('fw tenant create [keys...]');
    // a group without its subcommand: the group's help, exit 1
    expect(group.code).toBe(1);
    expect(group.stderr).toMatch(/Usage: fw tenant \[options\] \[command\][\s\S]*create \[options\] \[keys\.\.\.\][\s\S]*list/);
  });

  it('an unknown command, an unknown option, an option without its value, a missing required option: commander\'s message and exit 1, nothing written', async () => {
    const [command, sub, option, noValue, noMessage, excess] = await Promise.all([
      fw(env, 'frobnicate'), fw(env, 'tenant', 'frobnicate'), fw(env, 'tenant', 'list', '--bogus'),
      fw(env, 'events', 'drain', '-t'), fw(env, 'migrate', 'generate', '--app', 'crm.sales'), fw(env, 'tenant', 'list', 'extra'),
    ]);
    expect(command.stderr).toContain("error: unknown command 'frobnicate'");
    // the help follows the message: the root's lists every command
    expect(command.stderr).toContain('fw tenant create [keys...]');
    expect(sub.stderr).toContain("error: unknown command 'frobnicate'");
    expect(option.stderr).toContain("error: unknown option '--bogus'");
    expect(noValue.stderr).toContain("error: option '-t, --tenant <tenant>' argument missing");
    expect(noMessage.stderr).toContain("error: required option '-m, --message <description>' not specified");
    expect(excess.stderr).toContain('error: too many arguments');
    for (const r of [command, sub, option, noValue, noMessage, excess]) expect(r.code, r.stderr).toBe(1);
    expect(fs.existsSync(env.DATA_DIR)).toBe(false);
  });
}, 120_000);
