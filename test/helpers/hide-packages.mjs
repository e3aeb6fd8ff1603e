// `node --import ./hide-packages.mjs`: hides the packages named in
// SKILLHOST_HIDE_PACKAGES (comma-separated) from every import in the process.
import { register } from 'node:module'

register('./hide-packages-hooks.mjs', import.meta.url, {
  data: { hidden: (process.env.SKILLHOST_HIDE_PACKAGES ?? '').split(',').filter(Boolean) },
})
