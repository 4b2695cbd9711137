import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseAllDocuments } from "yaml"
import { READY_WITHIN_SECONDS } from "../src/http/ops/Http.ts"
import { startTestServer, type TestServer } from "./support/server.ts"

/**
 * Issue 11: the deployment files in ops/ agree with the service. No container engine runs here, so
 * every file is parsed and checked: the variables they set are ones the service reads, the required
 * secrets are set, ports and probe paths are the service's, the probes wait longer than `/ready` takes to
 * decide, the KEDA query runs on the real schema, and the alerting rules pass `promtool check rules`.
 */
const ROOT = fileURLToPath(new URL("..", import.meta.url))
const read = (path: string) => readFileSync(join(ROOT, path), "utf8")
const yamlDocs = (path: string) =>
  parseAllDocuments(read(path), { merge: true }).map((d) => d.toJS({ maxAliasCount: 100 }))

/** Every environment variable the service reads, found in its sources (Config.*("X"), positiveInt("X"), …). */
const readVariables = () => {
  const names = new Set<string>()
  const walk = (dir: string) => {
    for (const entry of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) walk(path)
      else if (path.endsWith(".ts") && !path.endsWith(".test.ts")) {
        const text = read(path)
        for (const m of text.matchAll(/(?:Config\.\w+|positiveInt|chosen|\))\(\s*"([A-Z][A-Z0-9_]+)"/g))
          names.add(m[1]!)
        for (const m of text.matchAll(/process\.env\.([A-Z][A-Z0-9_]+)/g)) names.add(m[1]!)
      }
    }
  }
  walk("src")
  return names
}
const REQUIRED_IN_PRODUCTION = ["DATABASE_URL", "JWT_SECRET", "CARD_VAULT_KEY"]

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
})
afterAll(async () => {
  await server?.close()
})

describe("ops/ deployment files", () => {
  const known = readVariables()

  it("the service's own list of variables is found (sanity of the scan)", () => {
    for (const name of ["PORT", "DATABASE_URL", "JWT_SECRET", "CARD_VAULT_KEY", "SHUTDOWN_GRACE_SECONDS"]) {
      expect(known, name).toContain(name)
    }
  })

  it("Dockerfile: multi-stage, non-root, production deps, HEALTHCHECK outwaiting /ready, STOPSIGNAL, known ENV", () => {
    const text = read("ops/Dockerfile")
    expect(text.match(/^FROM /gm)!.length).toBeGreaterThanOrEqual(2)
    // Built and run on one Node line, a supported one (docs/development.md "Supported Node lines").
    const lines = [...text.matchAll(/^FROM node:(\d+)-/gm)].map((m) => Number(m[1]))
    expect(lines.length).toBe(text.match(/^FROM /gm)!.length)
    expect(new Set(lines).size).toBe(1)
    expect([22, 24, 26]).toContain(lines[0])
    expect(text).toMatch(/^USER node$/m)
    expect(text).toContain("npm prune --omit=dev")
    expect(text).toMatch(/HEALTHCHECK[\s\S]*\/ready/)
    // /ready answers 503 after giving the database READY_WITHIN_SECONDS: a check that gives up first fails a
    // process whose database is only slow.
    const healthTimeout = /HEALTHCHECK[^\n]*--timeout=(\d+)s/.exec(text)
    expect(Number(healthTimeout?.[1])).toBeGreaterThan(READY_WITHIN_SECONDS)
    expect(text).toMatch(/^STOPSIGNAL SIGTERM$/m)
    expect(text).toMatch(/^EXPOSE 3000$/m)
    const env = [...text.matchAll(/^ENV ([\s\S]*?)(?:\n(?!\s))/gm)].flatMap((m) =>
      [...m[1]!.matchAll(/([A-Z_]+)=/g)].map((x) => x[1]!)
    )
    expect(env.length).toBeGreaterThan(0)
    for (const name of env) expect(known, `Dockerfile ENV ${name}`).toContain(name)
  })

  it("compose.yaml: postgres, migrate, 2 api and 2 worker replicas, Prometheus and Grafana; known variables", () => {
    const [compose] = yamlDocs("ops/compose.yaml")
    const services = compose.services
    expect(Object.keys(services)).toEqual(
      expect.arrayContaining(["postgres", "migrate", "api", "worker", "prometheus", "grafana"])
    )
    expect(services.api.deploy.replicas).toBe(2)
    expect(services.worker.deploy.replicas).toBe(2)
    expect(services.api.command).toEqual(["api"])
    expect(services.worker.command).toEqual(["worker"])
    expect(services.migrate.command).toEqual(["migrate"])
    for (const name of ["api", "worker", "migrate"]) {
      const env = services[name].environment
      for (const key of Object.keys(env)) expect(known, `${name}: ${key}`).toContain(key)
      for (const key of REQUIRED_IN_PRODUCTION) expect(Object.keys(env), `${name} sets ${key}`).toContain(key)
      expect(env.PORT).toBe("3000")
    }
    expect(services.grafana.volumes.join(" ")).toContain("grafana-dashboard.json")
    // Metrics on their own listener, open to the compose network, never published on the host.
    const metricsPort = Number(services.api.environment.METRICS_PORT)
    expect(metricsPort).not.toBe(3000)
    expect(services.api.environment.METRICS_HOST).toBe("0.0.0.0")
    expect(services.api.ports.join(" ")).not.toContain(String(metricsPort))
    // Both roles serve /metrics on the same port and both are scraped: the worker's delivery, job and
    // ledger-check metrics exist nowhere else (docs/operations.md "Metrics").
    expect(Number(services.worker.environment.METRICS_PORT)).toBe(metricsPort)
    expect(services.worker.environment.METRICS_HOST).toBe("0.0.0.0")
    expect(services.worker.ports ?? []).toEqual([])
    const [prometheus] = yamlDocs("ops/compose/prometheus.yml")
    const scraped = prometheus.scrape_configs.flatMap(
      (job: { metrics_path: string; dns_sd_configs: Array<{ names: Array<string>; port: number }> }) => {
        expect(job.metrics_path).toBe("/metrics")
        return job.dns_sd_configs.flatMap((c) => {
          expect(c.port).toBe(metricsPort)
          return c.names
        })
      }
    )
    expect(scraped.sort()).toEqual(["api", "worker"])
  })

  it("Kubernetes: deployments, probes (paths, port, outwaiting /ready), requests, Service, Job, PDB, HPA, KEDA", () => {
    const docs = readdirSync(join(ROOT, "ops/k8s")).flatMap((f) => yamlDocs(`ops/k8s/${f}`))
    const kinds = (kind: string) => docs.filter((d) => d.kind === kind)
    expect(
      kinds("Deployment")
        .map((d) => d.metadata.name)
        .sort()
    ).toEqual(["gateway-api", "gateway-worker"])
    for (const k of ["Service", "Job", "PodDisruptionBudget", "HorizontalPodAutoscaler", "ScaledObject"]) {
      expect(kinds(k).length, k).toBeGreaterThan(0)
    }
    const config = kinds("ConfigMap")[0].data
    const secret = kinds("Secret")[0].stringData
    for (const key of [...Object.keys(config), ...Object.keys(secret)]) expect(known, key).toContain(key)
    for (const key of REQUIRED_IN_PRODUCTION) expect({ ...config, ...secret }, key).toHaveProperty(key)
    const api = kinds("Deployment").find((d) => d.metadata.name === "gateway-api")
    const container = api.spec.template.spec.containers[0]
    expect(container.ports[0].containerPort).toBe(Number(config.PORT))
    expect(container.readinessProbe.httpGet.path).toBe("/ready")
    // /ready gives the database READY_WITHIN_SECONDS before its 503; Kubernetes' default timeoutSeconds is 1,
    // which would fail every API pod at once (out of the Service) while the database merely answers in 1–2 s.
    expect(container.readinessProbe.timeoutSeconds ?? 1).toBeGreaterThan(READY_WITHIN_SECONDS)
    expect(container.livenessProbe.httpGet.path).toBe("/health")
    expect(container.resources.requests).toHaveProperty("cpu")
    expect(api.spec.template.spec.terminationGracePeriodSeconds).toBeGreaterThan(Number(config.SHUTDOWN_GRACE_SECONDS))
    expect(kinds("Service")[0].spec.ports[0].targetPort).toBe(Number(config.PORT))
    // Prometheus scrapes the metrics port, which the Service (the public way in) does not expose.
    expect(Number(config.METRICS_PORT)).not.toBe(Number(config.PORT))
    expect(config.METRICS_HOST).toBe("0.0.0.0")
    expect(api.spec.template.metadata.annotations["prometheus.io/port"]).toBe(config.METRICS_PORT)
    expect(container.ports).toContainEqual({ name: "metrics", containerPort: Number(config.METRICS_PORT) })
    for (const port of kinds("Service").flatMap((s) => s.spec.ports)) {
      expect(port.targetPort).not.toBe(Number(config.METRICS_PORT))
    }
    // The worker pods are scraped as the API pods are (their metrics exist nowhere else).
    const worker = kinds("Deployment").find((d) => d.metadata.name === "gateway-worker")
    expect(worker.spec.template.metadata.annotations["prometheus.io/scrape"]).toBe("true")
    expect(worker.spec.template.metadata.annotations["prometheus.io/port"]).toBe(config.METRICS_PORT)
    expect(worker.spec.template.spec.containers[0].ports).toContainEqual({
      name: "metrics",
      containerPort: Number(config.METRICS_PORT)
    })
    const [prometheus] = yamlDocs("ops/prometheus.yml")
    const roles = new Set<string>()
    for (const job of prometheus.scrape_configs) {
      for (const c of job.static_configs as Array<{ targets: Array<string>; labels: { role: string } }>) {
        roles.add(c.labels.role)
        for (const target of c.targets) expect(target).toMatch(new RegExp(`:${config.METRICS_PORT}$`))
      }
    }
    expect([...roles].sort()).toEqual(["api", "worker"])
    expect(kinds("Job")[0].spec.template.spec.containers[0].args).toEqual(["migrate"])
    expect(kinds("HorizontalPodAutoscaler")[0].spec.metrics[0].resource.name).toBe("cpu")
  })

  it("the probe paths answer on the service, and the KEDA query runs on its schema", async () => {
    for (const path of ["/ready", "/health"]) {
      expect((await fetch(`${server.baseUrl}${path}`)).status, path).toBe(200)
    }
    expect((await fetch(server.metricsUrl)).status).toBe(200)
    expect((await fetch(`${server.baseUrl}/metrics`)).status).toBe(404)
    const keda = readdirSync(join(ROOT, "ops/k8s"))
      .flatMap((f) => yamlDocs(`ops/k8s/${f}`))
      .find((d) => d.kind === "ScaledObject")
    const { rows } = await server.db.query(keda.spec.triggers[0].metadata.query)
    expect(Number(rows[0].count)).toBeGreaterThanOrEqual(0)
  })

  it("every metric the Grafana dashboard and the alerts name is one the service exposes", async () => {
    const exposed = new Set(
      [...(await (await fetch(server.metricsUrl)).text()).matchAll(/^# TYPE (\w+) (\w+)$/gm)].flatMap(
        ([, name, type]) => (type === "histogram" ? [`${name}_bucket`, `${name}_sum`, `${name}_count`] : [name!])
      )
    )
    const exprs = [
      ...JSON.parse(read("ops/grafana-dashboard.json")).panels.flatMap((p: { targets?: Array<{ expr: string }> }) =>
        (p.targets ?? []).map((t) => t.expr)
      ),
      ...yamlDocs("ops/alerts.yml").flatMap((d) =>
        d.groups.flatMap((g: { rules: Array<{ expr: string }> }) => g.rules.map((r) => r.expr))
      )
    ]
    expect(exprs.length).toBeGreaterThan(20)
    // The series names of a PromQL expression: what is left once label matchers, grouping clauses and
    // function calls are taken out (durations start with a digit; the few keywords are named).
    const KEYWORDS = new Set(["and", "or", "unless", "bool", "offset", "by", "without"])
    const named = exprs.flatMap((expr: string) =>
      [
        ...expr
          .replace(/\{[^}]*\}/g, "")
          .replace(/\b(?:by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, "")
          .matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)
      ]
        .map((m) => m[1]!)
        .filter((name) => !KEYWORDS.has(name))
        .map((name) => ({ expr, name }))
    )
    expect(named.map((n) => n.name)).toContain("operator_queue")
    expect(named.filter((n) => !exposed.has(n.name))).toEqual([])
  })

  it("promtool check rules ops/alerts.yml", () => {
    const found = spawnSync("promtool", ["--version"])
    if (found.error) {
      if (process.env.CI) throw new Error("promtool is missing: .ci/run installs Debian's prometheus package")
      console.warn("promtool check skipped: promtool not found (apt-get install -y prometheus)")
      return
    }
    const check = spawnSync("promtool", ["check", "rules", join(ROOT, "ops/alerts.yml")], { encoding: "utf8" })
    expect(check.status, check.stdout + check.stderr).toBe(0)
  })
})
