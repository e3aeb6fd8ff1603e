import type * as Yaml from 'yaml'
import { firstUsePackage } from '../common/first-use-package.js'

/**
 * The `yaml` package, loaded on first use (it is CommonJS, so a synchronous
 * `require` serves the synchronous parsers): about 40 ms of start-up that a
 * process whose manifests all take the fast frontmatter path never pays.
 */
export const yamlLib: () => typeof Yaml = firstUsePackage<typeof Yaml>('yaml')
