/**
 * `npm run build:dashboard`: builds the web dashboard into its cache now (docs/dashboard.md "Build"), so
 * that the first start does not; `npm start` builds it anyway when the cache is missing or stale.
 */
import { loadBundle } from "../src/http/dashboard/bundle.ts"

const bundle = await loadBundle()
const kb = (bundle.firstLoadJsBytes / 1024).toFixed(1)
console.log(`dashboard: ${bundle.assets.size} files, first-load JavaScript ${kb} KB gzipped`)
