/**
 * `npm start` (and start:api, start:worker, migrate, cli): the service as compiled JavaScript, built from
 * `src/` by esbuild into a cache named by a hash of the sources, then imported in this very process (its
 * PID and signals are the gateway's own). Nothing is transpiled at run time: under tsx the process took
 * ~350 MB RSS, compiled ~150 (docs/performance.md "Memory of npm start").
 *
 * Plain JavaScript on purpose: it must run with nothing but `npm ci` done, from any directory, as any user.
 *
 *   node scripts/start.mjs main <all|api|worker|migrate>
 *   node scripts/start.mjs cli <noun> <verb> …
 *
 * The cache (docs/development.md "Running compiled"):
 * - `node_modules/.cache/gateway-start/<hash>/` beside the sources, when that is writable or already built;
 * - otherwise `$XDG_CACHE_HOME/brazil-payment-gateway/start/` or `<os.tmpdir()>/gateway-start-<uid>/`
 *   (0700, ours, checked before use), with a `node_modules` link back to the project's, for the bundle's packages;
 * - a build goes to a temporary directory renamed into place, so two starts at once never see half a build
 *   (the loser of the rename uses the winner's); an edit of `src/` changes the hash, so the next start builds.
 */
import { createHash } from "node:crypto"
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync
} from "node:fs"
import { isBuiltin } from "node:module"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"

const ROOT = fileURLToPath(new URL("..", import.meta.url))
const SRC = join(ROOT, "src")
const ENTRIES = { main: "main.ts", cli: "cli.ts" }

/** Builds of other sources untouched this long are removed (a start touches the build it runs). */
const KEEP_MS = 7 * 24 * 3_600_000
/** A temporary build this old belongs to a start that died while building. */
const STALE_TMP_MS = 3_600_000

const entry = process.argv[2]
if (!Object.hasOwn(ENTRIES, entry ?? "")) {
  console.error(`usage: node scripts/start.mjs <${Object.keys(ENTRIES).join("|")}> [arguments]`)
  process.exit(2)
}
// The service reads its own arguments from argv[2] on, as when run directly.
process.argv.splice(2, 1)

/** Every file of src/ but the tests, sorted: what the bundle is made of. */
const sourceFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true })
    .flatMap((e) =>
      e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith(".test.ts") ? [] : [join(dir, e.name)]
    )
    .sort()

/** Everything the output depends on: the sources, this launcher, esbuild's version and where the project is. */
const sourceHash = () => {
  const hash = createHash("sha256")
  const esbuild = JSON.parse(readFileSync(join(ROOT, "node_modules/esbuild/package.json"), "utf8"))
  hash.update(`esbuild ${esbuild.version}\nroot ${ROOT}\n`)
  for (const file of [fileURLToPath(import.meta.url), join(ROOT, "tsconfig.json"), ...sourceFiles(SRC)]) {
    hash.update(`${relative(ROOT, file)}\n`)
    hash.update(readFileSync(file))
  }
  return hash.digest("hex").slice(0, 16)
}

const own = (dir) => {
  const info = lstatSync(dir)
  return info.isDirectory() && info.uid === process.getuid?.() && (info.mode & 0o077) === 0
}

/** A cache directory outside the project, private to this user; undefined when none is safe to use. */
const privateCache = () => {
  const xdg = process.env.XDG_CACHE_HOME
  const dir = xdg
    ? join(xdg, "brazil-payment-gateway", "start")
    : join(tmpdir(), `gateway-start-${process.getuid?.() ?? "user"}`)
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 })
    // Another user's directory, a link, or one open to others could hold code we did not build.
    return own(dir) ? dir : undefined
  } catch {
    return undefined
  }
}

const writable = (dir) => {
  try {
    mkdirSync(dir, { recursive: true })
    const probe = join(dir, `.probe-${process.pid}`)
    writeFileSync(probe, "")
    rmSync(probe)
    return true
  } catch {
    return false
  }
}

/**
 * `import { HttpApiBuilder, HttpServer } from "@effect/platform"` as `import * as HttpApiBuilder from
 * "@effect/platform/HttpApiBuilder"`, … (the barrel is only `export * as` of each module). Through the
 * barrel every module of the package is reachable from the entry points, so esbuild puts what a lazily
 * imported module uses (the /docs page's 3.4 MB HttpApiScalar) in a chunk loaded at start.
 */
const PLATFORM_BARREL = /import\s*\{([^}]*)\}\s*from\s*"@effect\/platform"/g
const platformModules = (text) =>
  text.replace(PLATFORM_BARREL, (_, names) =>
    names
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "" && !name.startsWith("type "))
      .map((name) => {
        const [module, local = module] = name.split(/\s+as\s+/)
        return `import * as ${local} from "@effect/platform/${module}"`
      })
      .join(";")
  )

/**
 * The sources as esbuild reads them: `import.meta.url` is the source file's own URL, so the modules that
 * find files from where they are (`.data`, the dashboard's sources, the embedded PostgreSQL package) find
 * them as under tsx; and @effect/platform's barrel imports name its modules.
 */
const sources = {
  name: "sources",
  setup(build) {
    build.onLoad({ filter: /\.ts$/ }, (args) => {
      if (args.path.includes("/node_modules/")) return undefined
      const text = readFileSync(args.path, "utf8")
      const url = JSON.stringify(pathToFileURL(args.path).href)
      return { contents: platformModules(text.replaceAll("import.meta.url", url)), loader: "ts" }
    })
  }
}

/**
 * Effect's packages are bundled, the others left to Node. Effect's barrels (`import { Schema } from
 * "effect"`, `from "@effect/platform"`) would otherwise load every module of the package at start —
 * 600 of effect, and @effect/platform's API reference pages (5 MB of Scalar and Swagger scripts) — where
 * bundled they are tree-shaken to what the service uses (they declare `sideEffects: []`). The others
 * stay external: native addons, CommonJS reading files beside itself, and ~100 MB less to bundle.
 */
const BUNDLED = /^(effect|@effect\/[^/]+)(\/|$)/
const externals = {
  name: "externals",
  setup(build) {
    build.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (BUNDLED.test(args.path) || args.pluginData === "inner" || isBuiltin(args.path)) return undefined
      // A dependency of a bundled package that Node would not find from the bundle (a copy nested in that
      // package's node_modules, as effect's own fast-check) is bundled with it; the rest stays external.
      if (args.importer.includes("/node_modules/")) {
        const options = { kind: args.kind, pluginData: "inner" }
        const own = await build.resolve(args.path, { ...options, resolveDir: args.resolveDir })
        const top = await build.resolve(args.path, { ...options, resolveDir: ROOT })
        if (own.errors.length === 0 && (top.errors.length > 0 || top.path !== own.path)) return own
      }
      return { external: true }
    })
  }
}

const build = async (outdir) => {
  const esbuild = await import("esbuild")
  try {
    await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: Object.values(ENTRIES).map((file) => join(SRC, file)),
      outdir,
      bundle: true,
      // Dynamic import() of a module (what a role or an idle process may never need) becomes its own chunk.
      splitting: true,
      format: "esm",
      platform: "node",
      target: "node20",
      sourcemap: "linked",
      logLevel: "warning",
      plugins: [externals, sources]
    })
  } finally {
    await esbuild.stop?.()
  }
}

const BUILD_NAME = /^[0-9a-f]{16}(\.tmp-\d+-\d+)?$/

/** Removes builds of other sources nobody has started for a week, and temporary builds of dead starts. */
const prune = (cache, keep) => {
  for (const name of readdirSync(cache)) {
    // Only builds: a cache directory may hold other things (scripts/with-node.sh's Node lines sit in
    // $XDG_CACHE_HOME/brazil-payment-gateway/, beside start/).
    if (name === keep || !BUILD_NAME.test(name)) continue
    const path = join(cache, name)
    try {
      const age = Date.now() - statSync(path).mtimeMs
      if (age > (name.includes(".tmp-") ? STALE_TMP_MS : KEEP_MS)) rmSync(path, { recursive: true, force: true })
    } catch {
      // removed meanwhile by another start
    }
  }
}

const ready = async () => {
  const key = sourceHash()
  const local = join(ROOT, "node_modules", ".cache", "gateway-start")
  if (existsSync(join(local, key, ".complete"))) return join(local, key)
  // A read-only project, or node_modules owned by another user: build in a cache of this user's own,
  // or, when even that is not safe to use, in a fresh private directory (built at every start).
  const outside = writable(local) ? undefined : (privateCache() ?? mkdtempSync(join(tmpdir(), "gateway-start-")))
  const cache = outside ?? local
  const dir = join(cache, key)
  if (existsSync(join(dir, ".complete"))) return dir

  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`
  rmSync(tmp, { recursive: true, force: true })
  mkdirSync(tmp, { recursive: true })
  // Outside the project the bundle's bare imports need a way back to its packages.
  if (outside) symlinkSync(join(ROOT, "node_modules"), join(tmp, "node_modules"), "dir")
  await build(tmp)
  writeFileSync(join(tmp, ".complete"), `${new Date().toISOString()}\n`)
  try {
    renameSync(tmp, dir)
  } catch (error) {
    // Another start renamed its build of the same sources first: use that one.
    rmSync(tmp, { recursive: true, force: true })
    if (!existsSync(join(dir, ".complete"))) throw error
  }
  prune(cache, key)
  return dir
}

let dir
try {
  dir = await ready()
} catch (error) {
  console.error(`building src/ for ${entry} failed: ${error instanceof Error ? error.message : String(error)}`)
  process.exit(1)
}
try {
  const now = new Date()
  utimesSync(dir, now, now)
} catch {
  // a read-only cache built by someone else: nothing to touch
}
await import(pathToFileURL(join(dir, ENTRIES[entry].replace(/\.ts$/, ".js"))).href)
