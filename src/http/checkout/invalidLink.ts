import { HttpServerResponse } from "@effect/platform"
import { CHECKOUT_SECURITY_HEADERS } from "./headers.ts"
import { STYLE_TAG } from "./inventory.ts"

/**
 * A link that names no checkout (mistyped, cut short, or from a transaction that no longer exists), for
 * a buyer's browser: what happened and what to do, in pt-BR, under the same policy (issue 23).
 */
const invalidLinkPage = () => `<!doctype html>
<html lang="pt-BR">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Link de pagamento inválido ou expirado</title>
${STYLE_TAG}
</head>
<body>
<main id="checkout" data-state="invalid">
<section class="card notice">
  <h1>Link de pagamento inválido ou expirado</h1>
  <p>Não encontramos nenhum pagamento neste endereço. O link pode ter sido copiado pela metade, digitado com
  algum erro, ou não valer mais. Nada foi cobrado por esta página.</p>
  <p><strong>O que fazer:</strong></p>
  <ul>
    <li>confira se o endereço está completo, exatamente como a loja enviou;</li>
    <li>se o erro continuar, fale com a loja e peça um novo link de pagamento.</li>
  </ul>
</section>
</main>
</body>
</html>`

/**
 * What a buyer's browser gets for a checkout link that names nothing: the page above, with the 404 an
 * unknown link has. Served by the page's handler (unknown token) and by the error envelope (a path under
 * /checkout/ that matches no route, e.g. a link cut short).
 */
export const invalidLinkResponse = () =>
  HttpServerResponse.text(invalidLinkPage(), {
    status: 404,
    contentType: "text/html; charset=utf-8",
    headers: { ...CHECKOUT_SECURITY_HEADERS, "cache-control": "no-store" }
  })
