import { type ChildProcess, execFile, spawn } from "node:child_process"
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { chmod, mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "./support/config.ts"
import { createMigratedTestDatabase } from "./support/database.ts"

/**
 * Issue 22 §3: `npm start` (scripts/start.mjs) runs the service compiled by esbuild into a cache named
 * by a hash of the sources, imported in the launcher's own process (docs/development.md "Running
 * compiled"). Each case runs a copy of the project (its own src/, scripts/, package files and a
 * node_modules linking to ours), so that its builds start cold and an edit touches no one else.
 */
const ROOT = fileURLToPath(new URL("..", import.meta.url))
const LOADED_HOOK = fileURLToPath(new URL("./support/loaded-modules.mjs", import.meta.url))
const asRoot = process.getuid?.() === 0

let base: string
beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), "gateway-compiled-"))
  await chmod(base, 0o755) // traversable by the unprivileged user of the read-only case
})
afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

/** A copy of the project in a new directory under `base`. */
const project = (name: string) => {
  const dir = join(base, name)
  for (const entry of ["src", "scripts", "package.json", "tsconfig.json"])
    cpSync(join(ROOT, entry), join(dir, entry), { recursive: true })
  mkdirSync(join(dir, "node_modules"))
  for (const entry of readdirSync(join(ROOT, "node_modules")))
    if (entry !== ".cache") symlinkSync(join(ROOT, "node_modules", entry), join(dir, "node_modules", entry))
  return dir
}

const builds = (cache: string) => (existsSync(cache) ? readdirSync(cache).sort() : [])
const localCache = (dir: string) => join(dir, "node_modules", ".cache", "gateway-start")

interface Run {
  readonly code: number | null
  readonly output: string
}

/** Runs a command to its end (bounded), with what it printed. */
const run = (command: string, args: ReadonlyArray<string>, options: { cwd: string; env?: NodeJS.ProcessEnv }) =>
  new Promise<Run>((resolve) => {
    const { DATABASE_URL: _, ...env } = process.env
    execFile(
      command,
      args,
      { cwd: options.cwd, env: { ...env, ...options.env }, timeout: 120_000 },
      (error, out, err) =>
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, output: `${out}${err}` })
    )
  })

/** `main bogus`: the compiled service loads every module it imports at start, then refuses the role. */
const bogusRole = (dir: string, env: NodeJS.ProcessEnv = {}, as: ReadonlyArray<string> = []) => {
  const command = [...as, process.execPath, join(dir, "scripts/start.mjs"), "main", "bogus"]
  return run(command[0]!, command.slice(1), { cwd: "/", env })
}

describe("npm start runs the service compiled, cached by the sources' hash", () => {
  it("two starts at once on a cold cache both run, leaving one complete build", async () => {
    const dir = project("concurrent")
    const [a, b] = await Promise.all([bogusRole(dir), bogusRole(dir)])
    for (const r of [a, b]) {
      expect(r.code, r.output).toBe(2)
      expect(r.output).toContain("unknown role bogus")
    }
    const entries = builds(localCache(dir))
    expect(entries, "one build, no temporary directory left").toHaveLength(1)
    expect(existsSync(join(localCache(dir), entries[0]!, ".complete"))).toBe(true)
  }, 180_000)

  it("an edit of src/ is what the next start runs", async () => {
    const dir = project("edited")
    expect((await bogusRole(dir)).output).toContain("unknown role bogus: use all")
    const main = join(dir, "src/main.ts")
    writeFileSync(main, readFileSync(main, "utf8").replace("unknown role ${role}: use", "no role ${role} here: use"))
    const edited = await bogusRole(dir)
    expect(edited.code).toBe(2)
    expect(edited.output).toContain("no role bogus here: use all")
    expect(builds(localCache(dir))).toHaveLength(2)
    // Unchanged sources reuse the build: a third start adds none.
    await bogusRole(dir)
    expect(builds(localCache(dir))).toHaveLength(2)
  }, 180_000)

  it("a project whose node_modules the user cannot write builds in a private cache of that user", async () => {
    const dir = project("read-only")
    const tmp = join(base, "tmp")
    mkdirSync(tmp, { mode: 0o1777 })
    await chmod(tmp, 0o1777)
    // Root writes anywhere: the start runs as `nobody` then, for whom the copy is read-only.
    const as = asRoot ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    if (!asRoot) await chmod(join(dir, "node_modules"), 0o555)
    const uid = asRoot ? 65534 : process.getuid!()
    const r = await bogusRole(dir, { TMPDIR: tmp, XDG_CACHE_HOME: "", HOME: tmp }, as)
    expect(r.code, r.output).toBe(2)
    expect(r.output).toContain("unknown role bogus")
    expect(existsSync(join(dir, "node_modules", ".cache")), "nothing written in the project").toBe(false)
    const cache = join(tmp, `gateway-start-${uid}`)
    const info = lstatSync(cache)
    expect(info.uid).toBe(uid)
    expect(info.mode & 0o777, "private to its user").toBe(0o700)
    const [build] = builds(cache)
    expect(lstatSync(join(cache, build!, "node_modules")).isSymbolicLink()).toBe(true)
    if (!asRoot) await chmod(join(dir, "node_modules"), 0o755)
  }, 180_000)
})

describe("npm start from another directory serves compiled code in its own process", () => {
  let service: ChildProcess | undefined
  afterAll(() => {
    if (service?.exitCode === null) service.kill("SIGKILL")
  })

  it("`npm --prefix <project> run migrate` from elsewhere applies the migrations", async () => {
    const dir = project("elsewhere")
    const r = await run("npm", ["--prefix", dir, "run", "migrate"], {
      cwd: tmpdir(),
      env: { DATABASE_URL: await createMigratedTestDatabase(), LOG_LEVEL: "info" }
    })
    expect(r.code, r.output).toBe(0)
    expect(r.output).toContain("migrations applied")
  }, 180_000)

  it("no TypeScript and no tsx is loaded, the PID is the server's, and SIGTERM stops it with 0", async () => {
    const dir = project("signals")
    const port = await freePort()
    const loaded = join(base, "loaded.txt")
    const { DATABASE_URL: _, ...env } = process.env
    service = spawn(
      process.execPath,
      ["--max-semi-space-size=32", "--import", LOADED_HOOK, join(dir, "scripts/start.mjs"), "main", "api"],
      {
        cwd: tmpdir(),
        env: {
          ...env,
          DATABASE_URL: await createMigratedTestDatabase(),
          PORT: String(port),
          HOST: "127.0.0.1",
          METRICS_PORT: String(await freePort()),
          LOADED_MODULES_FILE: loaded
        },
        stdio: ["ignore", "pipe", "pipe"]
      }
    )
    let output = ""
    service.stdout!.on("data", (c) => (output += c))
    service.stderr!.on("data", (c) => (output += c))
    const exited = new Promise<number | null>((resolve) => service!.once("exit", (code) => resolve(code)))
    const deadline = Date.now() + 90_000
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${port}/ready`).then(
        (r) => r.status,
        () => 0
      )
      if (status === 200) break
      if (service.exitCode !== null || Date.now() > deadline) throw new Error(`not ready:\n${output}`)
      await new Promise((r) => setTimeout(r, 200))
    }
    // The process we started is the one serving: it has no child process of its own.
    const children = readdirSync("/proc").filter((name) => {
      try {
        const stat = readFileSync(`/proc/${name}/stat`, "utf8")
        return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === service!.pid
      } catch {
        return false
      }
    })
    expect(children).toEqual([])

    const urls = readFileSync(loaded, "utf8").trim().split("\n")
    const [build] = builds(localCache(dir))
    expect(urls).toContain(`file://${join(localCache(dir), build!, "main.js")}`)
    expect(urls.filter((u) => u.includes("/node_modules/tsx/"))).toEqual([])
    expect(urls.filter((u) => u.endsWith(".ts"))).toEqual([])
    // What an idle API does not use is not loaded (docs/performance.md "Memory of npm start").
    for (const lazy of [
      "/node_modules/pdfkit/",
      "/node_modules/qrcode/",
      "/node_modules/@opentelemetry/sdk-trace-node/"
    ])
      expect(urls.filter((u) => u.includes(lazy))).toEqual([])

    service.kill("SIGTERM")
    expect(await exited).toBe(0)
  }, 180_000)
})
