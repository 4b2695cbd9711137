/**
 * One installment of the Price table at the default 2.99 % a month (INSTALLMENT_MONTHLY_INTEREST_PERCENT,
 * docs/configuration.md), computed here from the rule and not from the service's code: N·i·(1+i)^n /
 * ((1+i)^n − 1), in exact integers, rounded half up to the centavo.
 */
export const priceInstallment = (amount: number, n: number) => {
  const [a, b] = [299n, 10_000n]
  const grown = (b + a) ** BigInt(n)
  const num = BigInt(amount) * a * grown
  const den = b * (grown - b ** BigInt(n))
  return Number((2n * num + den) / (2n * den))
}

/** Centavos as the pages print them: `R$ 1.234,56`, with the no-break space Intl puts after `R$`. */
export const brl = (c: number) =>
  `R$\u00a0${Math.floor(c / 100).toLocaleString("pt-BR")},${String(c % 100).padStart(2, "0")}`
