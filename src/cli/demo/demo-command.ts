import type { CliCommand } from '../shared/cli-command.js'
import { type HelpSpec, helpWidth, renderHelp } from '../shared/help-text.js'
import { missingOptionalPackage, missingPackageMessage } from '../shared/optional-package.js'

const HELP: HelpSpec = {
  usage: [
    'skillhost demo [--root DIR [--import-modules]] [--model ID] [--no-scripts] [--no-undeclared-scripts]',
  ],
  blocks: [
    'Run one agent conversation through the Vercel AI SDK against the bundled example skills, printing every step: the tools the model is offered, the context the skills cost (estimated as characters / 4), each gate decision, each tool call and its (truncated) result. The model loads a skill, uses it, unloads it (its body and tools leave the context) and then re-reads its earlier result by id.',
    'Uses OpenAI when OPENAI_API_KEY is set, else Anthropic when ANTHROPIC_API_KEY is set, else a scripted model, clearly labelled as such.',
    {
      title: 'Options:',
      items: [
        {
          term: '--root DIR',
          text: 'skills to use instead of the bundled examples/skills; their module tools are not imported (nor offered) unless --import-modules is given; the first lines say which. The scripted model then works from the catalog it finds: list, load the first skill that loads, run one of its script files with --help in the sandbox (or a script tool that needs no arguments), unload, and answer with what happened',
        },
        {
          term: '--import-modules',
          text: "with --root: import DIR's module tools into this process (the bundled examples are always imported)",
        },
        { term: '--model ID', text: 'provider model id (default gpt-4.1-mini / claude-haiku-4-5)' },
        { term: '--no-scripts', text: 'do not probe the bubblewrap sandbox' },
        {
          term: '--no-undeclared-scripts',
          text: 'run only scripts a sidecar declares (the form-fill step then has nothing to run)',
        },
        { term: '-h, --help', text: 'show this help' },
      ],
    },
    'Needs the optional packages ai (and @ai-sdk/openai or @ai-sdk/anthropic for a real model); without them demo says which to install.',
    'Exit status: 0; 1 when a needed package is missing, the --root folder cannot be searched (missing, not a folder, unreadable: named on stderr), the run fails or no skill loaded; 2 on a usage error.',
  ],
}

/**
 * `skillhost demo`: a narrated agent run through the AI SDK adapter. The
 * implementation (and the AI SDK) loads only when the command runs, so
 * `--help` works without it, and a missing optional package is named with
 * the command that installs it instead of Node's resolution error.
 */
export const demoCommand: CliCommand = {
  name: 'demo',
  help: HELP,
  run: async (argv, io) => {
    try {
      const help = renderHelp(HELP, helpWidth(io.columns))
      return await (await import('./demo-main.js')).runDemo(argv, io, help)
    } catch (err) {
      const pkg = missingOptionalPackage(err)
      if (pkg === undefined) throw err
      io.stderr(`${missingPackageMessage('demo', pkg)}\n`)
      return 1
    }
  },
}
