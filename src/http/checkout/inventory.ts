import inventory from "./inventory.json" with { type: "json" }

/**
 * The payment pages' script inventory (PCI DSS 4.0 req. 6.4.3, 11.6.1; docs/checkout.md "Script
 * inventory"): the pages write each asset with the integrity recorded there, never one computed from the
 * asset at run time, so an asset changed without the inventory is refused by the browser (and fails
 * test/checkout.inventory.test.ts) instead of being trusted silently.
 */
const integrityOf = (src: string) => {
  const entry = [...inventory.scripts, ...inventory.styles].find((e) => e.src === src)
  if (entry === undefined) throw new Error(`${src} is not in src/http/checkout/inventory.json`)
  return entry.integrity
}

export const SCRIPT_TAG = `<script src="/checkout/assets/checkout.js" integrity="${integrityOf(
  "/checkout/assets/checkout.js"
)}"></script>`
export const STYLE_TAG = `<link rel="stylesheet" href="/checkout/assets/checkout.css" integrity="${integrityOf(
  "/checkout/assets/checkout.css"
)}">`
export const INVENTORY = inventory
