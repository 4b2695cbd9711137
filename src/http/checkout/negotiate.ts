/**
 * Whether a request would rather have HTML than JSON: a browser following a link (`text/html` ranked at
 * least as high as JSON), not an API client (`application/json`, or curl's bare `*∕*`, which keeps the
 * JSON envelope it always had).
 */
export const prefersHtml = (accept: string | undefined) => {
  if (accept === undefined) return false
  let html = 0
  let json = 0
  for (const range of accept.split(",")) {
    const [type, ...params] = range.trim().toLowerCase().split(";")
    const q = params.map((p) => /^\s*q=([0-9.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    const weight = q === undefined ? 1 : Number(q)
    if (type === "text/html" || type === "application/xhtml+xml") html = Math.max(html, weight)
    if (type === "application/json") json = Math.max(json, weight)
  }
  return html > 0 && html >= json
}
