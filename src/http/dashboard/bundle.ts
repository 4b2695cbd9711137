import { createHash } from "node:crypto"
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * The web dashboard's bundle (docs/dashboard.md "Build"): `dashboard/src` built by esbuild (a
 * dependency, so `npm ci && npm start` needs nothing else) when the process first needs it, into
 * memory. The result is cached on disk under a key of the sources, the bundler and the libraries'
 * versions, so a start with current sources reads files instead of building. The cache goes where this
 * user can write: DASHBOARD_CACHE_DIR, else node_modules/.cache in the project, else the system's temp
 * directory; a read-only project and an unwritable cache only cost the build (~1 s) at each start.
 */

export interface Asset {
  readonly body: Uint8Array
  readonly contentType: string
}

export interface Bundle {
  readonly html: string
  /** By file name, hashed: /dashboard/assets/<name>. */
  readonly assets: ReadonlyMap<string, Asset>
  /** Gzipped size of the JavaScript a first load fetches (docs/performance.md "Dashboard"). */
  readonly firstLoadJsBytes: number
}

/** The project's root, from this file's place (src/http/dashboard or dist/http/dashboard). */
const ROOT = fileURLToPath(new URL("../../../", import.meta.url))
const SOURCES = join(ROOT, "dashboard", "src")
const LIBRARIES = ["esbuild", "preact", "uplot", "wouter-preact"]

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".map": "application/json"
}
const typeOf = (name: string) => TYPES[name.slice(name.lastIndexOf("."))] ?? "application/octet-stream"

const filesUnder = async (dir: string): Promise<Array<string>> => {
  const entries = await readdir(dir, { withFileTypes: true })
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : Promise.resolve([join(dir, e.name)])))
  )
  return nested.flat().sort()
}

/** What the bundle is made of: every source file and the versions of the libraries and the bundler. */
const sourceKey = async () => {
  const hash = createHash("sha256")
  for (const file of await filesUnder(SOURCES)) {
    hash
      .update(relative(SOURCES, file))
      .update("\0")
      .update(await readFile(file))
      .update("\0")
  }
  for (const name of LIBRARIES) {
    const pkg = JSON.parse(await readFile(join(ROOT, "node_modules", name, "package.json"), "utf8")) as {
      version: string
    }
    hash.update(`${name}@${pkg.version}\0`)
  }
  return hash.digest("hex").slice(0, 24)
}

const sri = (body: Uint8Array) => `sha384-${createHash("sha384").update(body).digest("base64")}`

/** The page: the hashed script and stylesheet with their integrity, nothing inline (CSP). */
const page = (files: ReadonlyMap<string, Asset>) => {
  const js = [...files.keys()].find((n) => /^main-.*\.js$/.test(n))!
  const css = [...files.keys()].find((n) => /^main-.*\.css$/.test(n))
  return (
    `<!doctype html>\n<html lang="pt-BR">\n<head>\n<meta charset="utf-8">\n` +
    `<meta name="viewport" content="width=device-width, initial-scale=1">\n` +
    `<title>Painel · Gateway</title>\n` +
    (css ? `<link rel="stylesheet" href="/dashboard/assets/${css}" integrity="${sri(files.get(css)!.body)}">\n` : "") +
    `<script type="module" src="/dashboard/assets/${js}" integrity="${sri(files.get(js)!.body)}"></script>\n` +
    `</head>\n<body>\n<div id="app"></div>\n` +
    `<noscript>O painel precisa de JavaScript. / The dashboard needs JavaScript.</noscript>\n</body>\n</html>\n`
  )
}

const build = async (): Promise<Map<string, Asset>> => {
  const esbuild = await import("esbuild")
  const out = join(ROOT, "dashboard", "out")
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: [join(SOURCES, "main.tsx")],
    bundle: true,
    minify: true,
    format: "esm",
    target: ["es2022", "chrome111", "firefox111", "safari16"],
    jsx: "automatic",
    jsxImportSource: "preact",
    entryNames: "[name]-[hash]",
    assetNames: "[name]-[hash]",
    outdir: out,
    write: false,
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent"
  })
  return new Map(
    result.outputFiles.map((f) => {
      const name = relative(out, f.path)
      return [name, { body: f.contents, contentType: typeOf(name) }] as const
    })
  )
}

/** A cache directory this user owns and nobody else may write (the temp directory is shared). */
const usable = async (dir: string) => {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 })
    const s = await stat(dir)
    const uid = process.getuid?.()
    return s.isDirectory() && (uid === undefined || s.uid === uid) && (s.mode & 0o022) === 0
  } catch {
    return false
  }
}

const cacheDirs = () => {
  const uid = process.getuid?.() ?? "user"
  return [
    process.env["DASHBOARD_CACHE_DIR"],
    join(ROOT, "node_modules", ".cache", "gateway-dashboard"),
    join(tmpdir(), `gateway-dashboard-${uid}`)
  ].filter((d): d is string => d !== undefined && d !== "")
}

const readCached = async (dir: string): Promise<Map<string, Asset> | undefined> => {
  try {
    const names = JSON.parse(await readFile(join(dir, "manifest.json"), "utf8")) as Array<string>
    const files = new Map<string, Asset>()
    for (const name of names) files.set(name, { body: await readFile(join(dir, name)), contentType: typeOf(name) })
    return files
  } catch {
    return undefined
  }
}

const writeCached = async (base: string, key: string, files: ReadonlyMap<string, Asset>) => {
  // Written beside, then renamed into place: a reader never sees half a bundle.
  const partial = join(base, `.${key}-${process.pid}-${Date.now()}`)
  try {
    await mkdir(partial, { recursive: true })
    for (const [name, asset] of files) await writeFile(join(partial, name), asset.body)
    await writeFile(join(partial, "manifest.json"), JSON.stringify([...files.keys()]))
    await rename(partial, join(base, key))
  } catch {
    await rm(partial, { recursive: true, force: true }).catch(() => undefined)
  }
}

const gzipSize = async (body: Uint8Array) => {
  const { gzipSync } = await import("node:zlib")
  return gzipSync(body, { level: 9 }).length
}

/** The bundle for the current sources: from the first usable cache that has it, else built (and cached). */
export const loadBundle = async (): Promise<Bundle> => {
  const key = await sourceKey()
  let files: Map<string, Asset> | undefined
  let writable: string | undefined
  for (const dir of cacheDirs()) {
    if (!(await usable(dir))) continue
    writable ??= dir
    files = await readCached(join(dir, key))
    if (files) break
  }
  if (!files) {
    files = await build()
    if (writable) await writeCached(writable, key, files)
  }
  let js = 0
  for (const [name, asset] of files) if (name.endsWith(".js")) js += await gzipSize(asset.body)
  return { html: page(files), assets: files, firstLoadJsBytes: js }
}
