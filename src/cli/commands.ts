import type { CliCommand } from './shared/cli-command.js'

/**
 * A row of the command table: what `skillhost --help` shows and how errors are
 * reported, known without loading the command; `load` imports its module
 * (and through it the library) only when the command runs or its help is asked.
 */
export interface CommandEntry {
  readonly name: string
  /** One line for the command list in `skillhost --help`. */
  readonly summary: string
  /**
   * The command takes `--json`; with it, its errors are JSON on stdout too
   * (`reportError`). Commands without it report errors as text only.
   */
  readonly json?: boolean
  readonly load: () => Promise<CliCommand>
}

/**
 * The command table, in `--help` order. Each command lives in its own folder;
 * `skillhost --version` and `--help` load none of them.
 */
export const COMMANDS: ReadonlyMap<string, CommandEntry> = new Map(
  (
    [
      {
        name: 'validate',
        summary: 'check skills against the agentskills.io rules',
        json: true,
        load: async () => (await import('./validate/validate-command.js')).validateCommand,
      },
      {
        name: 'list',
        summary: 'list discovered skills, shadowed copies and skipped folders',
        json: true,
        load: async () => (await import('./list/list-command.js')).listCommand,
      },
      {
        name: 'prompt',
        summary: 'print the <available_skills> block for a system prompt',
        load: async () => (await import('./prompt/prompt-command.js')).promptCommand,
      },
      {
        name: 'lock',
        summary: 'pin the skills the roots serve to a lockfile (for serve --locked)',
        load: async () => (await import('./lock/lock-command.js')).lockCommand,
      },
      {
        name: 'run',
        summary: 'run one script of a skill under the sandbox',
        json: true,
        load: async () => (await import('./run/run-command.js')).runCommand,
      },
      {
        name: 'env',
        summary: "build the python environments a skill's scripts declare (for --provision)",
        load: async () => (await import('./env/env-command.js')).envCommand,
      },
      {
        name: 'serve',
        summary: 'serve skills over MCP (stdio or --http)',
        load: async () => (await import('./serve/serve-command.js')).serveCommand,
      },
      {
        name: 'demo',
        summary: 'run a narrated agent conversation through the AI SDK adapter',
        load: async () => (await import('./demo/demo-command.js')).demoCommand,
      },
    ] satisfies CommandEntry[]
  ).map((c) => [c.name, c]),
)
