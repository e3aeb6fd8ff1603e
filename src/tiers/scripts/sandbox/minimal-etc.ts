import { existsSync } from 'node:fs'
import { isPathInside } from '../policy/policy.js'

/** One file the sandbox shows that comes from no host file: its sandbox path and its text. */
export interface SyntheticFile {
  readonly path: string
  readonly content: string
}

/** Who the sandboxed process is, as the synthetic `/etc/passwd` and `/etc/group` name it. */
export interface SandboxIdentity {
  readonly uid: number
  readonly gid: number
  /** The home directory `/etc/passwd` gives (the HOME the sandbox sets). */
  readonly home: string
}

/** The name `/etc/passwd` and `/etc/group` give the sandbox uid and gid. */
export const SANDBOX_USER_NAME = 'sandbox'

/**
 * The host paths holding TLS trust anchors (certificate directories and CA
 * bundles of Debian, Fedora, Alpine and SUSE), in the order looked for. Only
 * those present are granted, and only through the session policy's read
 * entries, so the policy says they are readable.
 */
export const CERTIFICATE_PATHS: readonly string[] = [
  '/etc/ssl/certs',
  '/etc/ssl/cert.pem',
  '/etc/ssl/ca-bundle.pem',
  '/etc/ca-certificates',
  '/etc/pki/tls/certs',
  '/etc/pki/tls/cert.pem',
  '/etc/pki/ca-trust/extracted',
]

/** The entries of `CERTIFICATE_PATHS` that exist on this host. */
export function hostCertificatePaths(exists: (path: string) => boolean = existsSync): string[] {
  return CERTIFICATE_PATHS.filter((p) => exists(p))
}

/**
 * Host configuration under `/etc` that programs in `/usr` cannot do without
 * and that carries no host data, granted read-only when present, like the
 * certificates: fontconfig's (`/etc/fonts`: without it every program that
 * finds fonts through fontconfig — LibreOffice, Chromium, cairo, pango,
 * ImageMagick — fails to load its configuration and picks the wrong font)
 * and LibreOffice's (`/etc/libreoffice`: Debian links `soffice`'s
 * `sofficerc` from `/usr/lib/libreoffice` there, so `soffice` cannot start
 * without it).
 */
export const TOOL_CONFIG_PATHS: readonly string[] = ['/etc/fonts', '/etc/libreoffice']

/** The entries of `TOOL_CONFIG_PATHS` that exist on this host. */
export function hostToolConfigPaths(exists: (path: string) => boolean = existsSync): string[] {
  return TOOL_CONFIG_PATHS.filter((p) => exists(p))
}

/**
 * The minimal `/etc` every sandbox gets, generated rather than read from the
 * host: `passwd` and `group` naming only the sandbox uid and gid (so `id -un`,
 * `getpass.getuser()` and `pwd.getpwuid` work), `hosts` mapping `localhost`
 * and the sandbox's hostname to loopback, and an `nsswitch.conf` that
 * consults files only. There is deliberately no `resolv.conf`: the sandbox
 * has no network, and a resolver must fail at once rather than time out.
 * Nothing here carries host data.
 */
export function minimalEtcFiles(identity: SandboxIdentity): SyntheticFile[] {
  const { uid, gid, home } = identity
  const user = SANDBOX_USER_NAME
  return [
    { path: '/etc/passwd', content: `${user}:x:${uid}:${gid}:${user}:${home}:/usr/sbin/nologin\n` },
    { path: '/etc/group', content: `${user}:x:${gid}:\n` },
    {
      path: '/etc/hosts',
      content: '127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n',
    },
    {
      path: '/etc/nsswitch.conf',
      content: ['passwd', 'group', 'shadow', 'hosts', 'networks', 'protocols', 'services']
        .map((db) => `${db}: files\n`)
        .join(''),
    },
  ]
}

/**
 * The synthetic files to mount, given the sandbox paths the policy already
 * makes readable from the host: a file under one of them is left out, so a
 * deployer who grants the host's `/etc` (or `/`) sees the host's files, as
 * the policy says, and bwrap never has to create a file inside a read-only bind.
 */
export function uncoveredFiles(
  files: readonly SyntheticFile[],
  readableSandboxPaths: readonly string[],
): SyntheticFile[] {
  return files.filter((f) => !readableSandboxPaths.some((r) => isPathInside(f.path, r)))
}
