import { parseMoney } from "../format.ts"
import { useTexts } from "../i18n.ts"
import { Field } from "../ui.tsx"

/**
 * The parts of a payment link's form that the create and edit panels share (docs/payment-links.md
 * "Dashboard"): its description, methods and installments, items and metadata. Each holds what the merchant
 * typed; the panels turn it into the API's words on submit, and the API's 400 names a field it refuses.
 */

const METHODS = ["pix", "credit_card", "billet"] as const

/** The methods a link takes and, when it takes cards, its most installments. */
export const MethodChoice = (props: {
  prefix: string
  methods: string[]
  onMethods: (methods: string[]) => void
  installments: string
  onInstallments: (installments: string) => void
}) => {
  const t = useTexts()
  const id = `${props.prefix}-installments`
  return (
    <>
      <fieldset>
        <legend>{t.methods}</legend>
        <div class="checks">
          {METHODS.map((m) => (
            <label key={m}>
              <input
                type="checkbox"
                checked={props.methods.includes(m)}
                onChange={(e) =>
                  props.onMethods(
                    e.currentTarget.checked ? [...props.methods, m] : props.methods.filter((x) => x !== m)
                  )
                }
              />{" "}
              {t.methodWords[m]}
            </label>
          ))}
        </div>
      </fieldset>
      {props.methods.includes("credit_card") ? (
        <Field id={id} label={t.maxInstallments}>
          <select id={id} value={props.installments} onChange={(e) => props.onInstallments(e.currentTarget.value)}>
            {Array.from({ length: 12 }, (_, i) => (
              <option key={i} value={String(i + 1)}>
                {i + 1}x
              </option>
            ))}
          </select>
        </Field>
      ) : null}
    </>
  )
}

/** The description the buyer reads under the link's name (at most 1,000 characters, as the API takes). */
export const DescriptionField = (props: { prefix: string; text: string; onText: (text: string) => void }) => {
  const t = useTexts()
  const id = `${props.prefix}-description`
  return (
    <Field id={id} label={t.description}>
      <textarea
        id={id}
        maxLength={1000}
        rows={2}
        value={props.text}
        onInput={(e) => props.onText(e.currentTarget.value)}
      />
    </Field>
  )
}

/** An item as the link answers it (v1's words). */
export interface LinkItem {
  name: string
  quantity: number
  unit_price: number
  sku: string | null
}

/** An item as the form holds it: the text typed in each box. */
export interface ItemDraft {
  name: string
  quantity: string
  price: string
  sku: string
}

const blank = (): ItemDraft => ({ name: "", quantity: "1", price: "", sku: "" })

/** A link's items as the edit panel starts them: the price in reais with a decimal comma, as typed. */
export const itemDrafts = (items: ReadonlyArray<LinkItem>): ItemDraft[] =>
  items.map((i) => ({
    name: i.name,
    quantity: String(i.quantity),
    price: (i.unit_price / 100).toFixed(2).replace(".", ","),
    sku: i.sku ?? ""
  }))

/**
 * The items to send. A row left with nothing but its default quantity is not an item. A price or
 * quantity that is not a number goes as null, which the API refuses naming `items[i].unit_price` or
 * `items[i].quantity`: the form does not guess what was meant.
 */
/**
 * A whole count typed in a box (a link's uses cap): its number, or else the text as typed, which the API refuses
 * naming the field. Never a guess: `Number("dez")` is NaN, which JSON sends as null — on an edit, "no cap" —
 * and "1.000" (a thousand, as a Brazilian writes it) is not 1 (docs/payment-links.md).
 */
export const wireCount = (typed: string): number | string =>
  /^\d+$/.test(typed.trim()) ? Number(typed.trim()) : typed.trim()

export const wireItems = (drafts: ReadonlyArray<ItemDraft>) =>
  drafts
    .filter((d) => d.name.trim() !== "" || d.price.trim() !== "" || d.sku.trim() !== "")
    .map((d) => ({
      name: d.name.trim(),
      quantity: /^\d+$/.test(d.quantity.trim()) ? Number(d.quantity.trim()) : null,
      unit_price: parseMoney(d.price),
      ...(d.sku.trim() === "" ? {} : { sku: d.sku.trim() })
    }))

/** The items a buyer sees on the link's page, a row each, with a button to add one and one to remove each. */
export const ItemsEditor = (props: { prefix: string; items: ItemDraft[]; onItems: (items: ItemDraft[]) => void }) => {
  const t = useTexts()
  const set = (at: number, change: Partial<ItemDraft>) =>
    props.onItems(props.items.map((d, i) => (i === at ? { ...d, ...change } : d)))
  const hint = `${props.prefix}-items-hint`
  return (
    <fieldset aria-describedby={hint}>
      <legend>{t.items}</legend>
      <p class="muted" id={hint}>
        {t.itemsHint}
      </p>
      {props.items.map((d, i) => {
        const id = (field: string) => `${props.prefix}-item-${i}-${field}`
        const label = `${t.itemNumber} ${i + 1}`
        return (
          <div class="inline item" role="group" aria-label={label} key={i}>
            <Field id={id("name")} label={t.itemName}>
              <input
                id={id("name")}
                maxLength={255}
                value={d.name}
                onInput={(e) => set(i, { name: e.currentTarget.value })}
              />
            </Field>
            <Field id={id("quantity")} label={t.itemQuantity}>
              <input
                id={id("quantity")}
                inputMode="numeric"
                value={d.quantity}
                onInput={(e) => set(i, { quantity: e.currentTarget.value })}
              />
            </Field>
            <Field id={id("price")} label={t.itemPrice}>
              <input
                id={id("price")}
                inputMode="decimal"
                value={d.price}
                onInput={(e) => set(i, { price: e.currentTarget.value })}
              />
            </Field>
            <Field id={id("sku")} label={t.itemSku}>
              <input id={id("sku")} value={d.sku} onInput={(e) => set(i, { sku: e.currentTarget.value })} />
            </Field>
            <button
              type="button"
              class="secondary"
              onClick={() => props.onItems(props.items.filter((_, j) => j !== i))}
            >
              {t.removeItem} <span class="sr-only">{label}</span>
            </button>
          </div>
        )
      })}
      <button type="button" class="secondary" onClick={() => props.onItems([...props.items, blank()])}>
        {t.addItem}
      </button>
    </fieldset>
  )
}

/** A link's metadata as the edit panel starts it: none is an empty box. */
export const metadataText = (metadata: Readonly<Record<string, unknown>>) =>
  Object.keys(metadata).length === 0 ? "" : JSON.stringify(metadata, null, 2)

/**
 * The metadata typed: undefined for an empty box, the object otherwise. Anything but a JSON object is
 * refused here, before a request, in the merchant's language: the API would refuse it too, but a
 * box of text that does not parse cannot be sent as the object the API names.
 */
export const parseMetadata = (text: string, invalid: string): Record<string, unknown> | undefined => {
  if (text.trim() === "") return undefined
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new Error(invalid)
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw new Error(invalid)
  return value as Record<string, unknown>
}

export const MetadataField = (props: { prefix: string; text: string; onText: (text: string) => void }) => {
  const t = useTexts()
  const id = `${props.prefix}-metadata`
  return (
    <>
      <Field id={id} label={t.metadata}>
        <textarea
          id={id}
          rows={3}
          spellcheck={false}
          aria-describedby={`${id}-hint`}
          value={props.text}
          onInput={(e) => props.onText(e.currentTarget.value)}
        />
      </Field>
      <p class="muted" id={`${id}-hint`}>
        {t.metadataHint}
      </p>
    </>
  )
}
