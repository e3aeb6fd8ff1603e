import type { HelpSpec } from '../shared/help-text.js'
import { OVERLAYS_HELP } from '../shared/overlay-dirs.js'
import { SANDBOX_FLAGS_HELP } from '../shared/sandbox-flags.js'

/** `skillhost run --help`: its usage, options and every exit status it may end with (`RUN_EXIT`). */
export const RUN_HELP: HelpSpec = {
  usage: [
    'skillhost run <skill-dir|id> <script> [options] [--<param> value ...] [positional ...] [-- value ...]',
    'skillhost run <skill-dir|id> <file> [options] [arg ...] [-- arg ...]',
  ],
  blocks: [
    'The skill is a folder holding SKILL.md, or an id skillhost list prints, looked up in the roots list searches by default (.agents/skills and .claude/skills up to the repository root, ~/.agents/skills, ~/.claude/skills, ./skills). A path that exists wins over an id; among roots holding the same id the earlier one wins, as list shows it active (stderr names the folder used and the copies it shadows).',
    "Run one script of a skill exactly as a model's call would run it: inside the bubblewrap sandbox, with an empty environment, the skill folder read-only at /skill, the workspace read-write at /work (the working directory) and no network. A script declared in skillhost.yaml takes its parameters as --name value (booleans as --name) and positionals in declaration order; values after -- are positionals, taken literally. Any other file of the skill (scripts/fill.py) runs by its shebang or extension, as run_<skill>_script would run it, with its arguments as you would type them after python scripts/fill.py (words and flags that are not run's, in order), and everything after -- passed literally (-- --help gives the script --help, -- --timeout 5 gives it run's flag names). For skill authors: see what your script does under the sandbox before a model calls it.",
    {
      title: 'Options:',
      items: [
        { term: '--timeout N', text: 'seconds before the script is killed (default 20, max 60)' },
        { term: '--json', text: 'print the result as JSON (exit code, output, truncation)' },
        {
          term: '--workspace DIR',
          text: "the folder mounted read-write at /work, the script's working directory: put inputs there and find outputs there. Without it, /work is a fresh private folder: files of the current folder named among the script's arguments are copied in, and files the script creates or changes are copied back here (one line each: output: NAME, updated: NAME), never over a file that exists or changed meanwhile",
        },
        {
          term: '--locked FILE',
          text: 'run only a skill FILE pins, exactly as pinned (skillhost lock writes it): a skill not pinned, or changed since, is refused naming what drifted (exit 65); with --provision, environments are built only from the versions and wheel sha256s FILE pins (skillhost env --lock), never resolved afresh',
        },
        OVERLAYS_HELP,
        ...SANDBOX_FLAGS_HELP,
        {
          term: '-h, --help',
          text: "show this help (before --; after it, --help is the script's)",
        },
      ],
    },
    "The script's interpreter must be one run allows: sh, bash, python, python3 (the python PATH gives, else the system python3) and node (the node PATH gives, else the system node), plus --interpreter names, which pin one over PATH. With --provision, a python script's declared requirements are installed outside the sandbox into a cached environment (see skillhost env). A python script that exits nonzero on a missing module (ModuleNotFoundError) keeps its status; a last stderr line names the python that ran (version and its path in the sandbox) and how to provide the package.",
    {
      title:
        "Exit status: the script's own exit status when it ran to its end (0 is success; --json has it as exitCode). skillhost run's own conditions use codes from sysexits.h and coreutils timeout, so a script's usual small codes (1, 2, 3, ...) never read as one of them:",
      items: [
        {
          term: '64',
          text: 'usage error: a bad option or parameter, no such script, not a skill folder',
        },
        {
          term: '65',
          text: '--locked refused: the lockfile cannot be used, or the skill or its environment is not as pinned',
        },
        { term: '66', text: 'the skill folder cannot be used: missing, not a folder, unreadable' },
        {
          term: '69',
          text: 'the sandbox could not run the script (bubblewrap missing or broken, an interpreter not allowed, a policy refused)',
        },
        { term: '70', text: 'an internal error of skillhost' },
        {
          term: '124',
          text: 'the script ran past --timeout and was killed (its output so far is shown)',
        },
        { term: '128+N', text: 'the script was killed by signal N' },
      ],
    },
    'A script that itself exits 64, 65, 66, 69, 70 or 124 is told apart by --json (exitCode, timedOut) and by a last stderr line "[skillhost run: the script itself exited N]".',
  ],
}
