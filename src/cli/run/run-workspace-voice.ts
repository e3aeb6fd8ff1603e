import { escapeLine, SkillHostError } from '../../common/index.js'

/**
 * `run --workspace DIR` on a folder that belongs to root, said in run's own
 * terms (issue 40.10). Scripts never run as root, so such a folder is used as
 * the sandbox's uid, which cannot write a 755 folder; skillhost changes no
 * folder's owner or mode to make it fit. What `run` offers instead: its
 * default, which copies the files the command line names into a private
 * workspace and what the script makes back (as the caller's files), or a
 * folder made for scripts. Any other error passes unchanged.
 */
export function workspaceVoice(
  err: SkillHostError,
  workspaceDir: string | undefined,
): SkillHostError {
  const { folder, runAs, mode } = err.data
  if (
    err.code !== 'E_SKILL_WORKSPACE_FAILED' ||
    workspaceDir === undefined ||
    folder !== 'root-owned' ||
    typeof runAs !== 'number'
  )
    return err
  const kept = typeof mode === 'number' ? ` (mode ${mode.toString(8)}, kept as it is)` : ''
  const dir = escapeLine(workspaceDir)
  return new SkillHostError('E_SKILL_WORKSPACE_FAILED', err.message, {
    cause: err,
    data: err.data,
    person: `--workspace ${dir} belongs to root, and scripts never run as root: as uid ${runAs} they cannot write it${kept}. Leave --workspace out: run copies the files its command line names into a private workspace and what the script makes back into the current folder, as your files. Or give a folder made for scripts: install -d -o ${runAs} -m 700 DIR, then --workspace DIR.`,
  })
}
