import { lstat } from 'node:fs/promises'
import { join } from 'node:path'
import { traced } from '../../../common/tracing.js'
import type { SkillRef } from '../../../sources/types.js'
import type { PolicyGrant } from '../policy/policy.js'
import type { SkillWorkspace } from '../sandbox/types.js'
import { copyFilesFromSource, type WorkspaceFileSource } from './skill-copy-files.js'

/**
 * A skill version's **skill copy**: its files materialized on the host,
 * never written after (each call sees it writable at `/skill` through a
 * copy of its own, `SandboxRunRequest.writableSkill`), and what its approved permission request adds
 * to every call of that version (declared tools, `run_<skill>_script`,
 * dynamic-context commands and `skillhost run` alike).
 */
export interface SkillCopy {
  /** The copy's root on the host, bound read-only (pinned) and copied writable to `/skill` per call. */
  readonly root: string
  /** The skill's files, relative to `root`. */
  readonly paths: readonly string[]
  /**
   * The sizes of its files, in `paths` order, measured once when the copy
   * was made (it is never written after; a file that is gone counts 0):
   * what a call's writable `/skill` must hold before the script writes.
   */
  readonly fileBytes: readonly number[]
  /**
   * For a skill in a Claude Code plugin: the copy of the plugin root on the
   * host (`root` is inside it) and the skill's folder in it. Calls see the
   * plugin root read-only at `PLUGIN_MOUNT` and the skill at its place below.
   */
  readonly plugin?: { readonly root: string; readonly skillPath: string }
  /** Paths the gate approved beyond the derived policy; absent when none. */
  readonly granted?: PolicyGrant
}

/** Where a script call gets its skill copy: made on first use, then reused. */
export interface SkillCopySource {
  get(signal?: AbortSignal, granted?: PolicyGrant): Promise<SkillCopy>
}

/**
 * The one maker of skill copies: the first `get` copies the skill's files
 * from `source` through `skillCopies.materialize` (the deployer's
 * `SkillScriptConfig.workspace`); later calls reuse that copy, and the
 * `granted` paths the first call brought. `own` hears of the copy's release
 * once it exists (the forge hands it to the loaded skill's store); without
 * it the caller calls `dispose`. A copy is never written after it is made.
 */
export class SkillCopyMaker implements SkillCopySource {
  #copy: Promise<SkillCopy> | undefined
  #root: string | undefined
  #disposed = false

  constructor(
    private readonly skillCopies: SkillWorkspace,
    private readonly source: WorkspaceFileSource,
    private readonly ref: SkillRef,
    private readonly own?: (release: () => Promise<void>) => void,
  ) {}

  get(signal?: AbortSignal, granted?: PolicyGrant): Promise<SkillCopy> {
    // One span per copy made (`skillhost.materialize`), a child of the call or load that needed it first.
    this.#copy ??= traced(
      'skillhost.materialize',
      { skillId: this.ref.id, skillVersion: this.ref.version },
      async (span) => {
        const copy = await this.#make(signal, granted)
        span.note({ count: copy.paths.length })
        return copy
      },
    )
    return this.#copy
  }

  async #make(signal: AbortSignal | undefined, granted: PolicyGrant | undefined) {
    const made = await copyFilesFromSource(this.source, this.ref)
    const root = await this.skillCopies.materialize(
      this.ref,
      made.files,
      signal === undefined ? undefined : { signal },
    )
    this.#root = root
    this.own?.(() => this.skillCopies.dispose(root))
    const skillPath = made.pluginSkillPath
    const skillRoot = skillPath === undefined ? root : join(root, ...skillPath.split('/'))
    const paths = made.skillPaths
    return {
      root: skillRoot,
      paths,
      fileBytes: await Promise.all(
        paths.map((p) =>
          lstat(join(skillRoot, p)).then(
            (st) => st.size,
            () => 0,
          ),
        ),
      ),
      ...(skillPath === undefined ? {} : { plugin: { root, skillPath } }),
      ...(granted && granted.read.length + granted.write.length > 0 ? { granted } : {}),
    }
  }

  /** Removes the copy, once; for a maker without `own`. */
  async dispose(): Promise<void> {
    if (this.#disposed) return
    this.#disposed = true
    await this.#copy?.catch(() => undefined)
    if (this.#root !== undefined) await this.skillCopies.dispose(this.#root)
  }
}
