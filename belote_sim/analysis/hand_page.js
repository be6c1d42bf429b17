// belote-sim hand evaluator (belote_sim/analysis/hand_page.py writes it with the data).
// Every number is computed from the atlas's cell sums (and priors) exactly as
// belote_sim.atlas.table_stats computes it: the same double-precision operations in
// the same order, so the same values as `belote-sim hand --json`.
"use strict";
(function () {
  const D = window.BELOTE_HAND;
  const SUITS = "CDHS";
  const RANKS = "789TJQKA";
  const SYMBOLS = ["♣", "♦", "♥", "♠"];
  const RANK_SHOW = ["7", "8", "9", "10", "J", "Q", "K", "A"];
  const STRAINS = ["C", "D", "H", "S", "NT", "AT"];
  const STRAIN_SHOW = ["♣ clubs", "♦ diamonds", "♥ hearts", "♠ spades", "no trumps",
    "all trumps"];
  const POSITION_SHOW = [["1", "speaks first, leads"], ["2", ""], ["3", ""],
    ["4", "dealer"]];
  const Z = D ? D.z95 : 1.959963984540054;
  const $ = (id) => document.getElementById(id);

  // The atlas the page opens on: the study's rules in a report, else the CLI's default
  // (hand_page.write_hand_page's ``default``); the address's hash may choose another.
  const state = { cards: [], position: 1, atlas: D && D.default ? D.default : 0 };
  let classes = null;
  const loaded = [];
  const timings = [];
  window.BELOTE_TIMINGS = timings;

  // -- the data: base64, deflate, byte planes ------------------------------------
  function b64bytes(text) {
    const bin = atob(text);
    const out = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out;
  }
  async function inflate(text) {
    const stream = new Blob([b64bytes(text)]).stream()
      .pipeThrough(new DecompressionStream("deflate"));
    return new Uint8Array(await new Response(stream).arrayBuffer());
  }
  function planes(buf, offset, rows, width, signed) {
    const out = new Float64Array(rows);
    let mul = 1;
    for (let k = 0; k < width; k++) {
      const base = offset + k * rows;
      for (let i = 0; i < rows; i++) out[i] += buf[base + i] * mul;
      mul *= 256;
    }
    if (signed) {
      for (let i = 0; i < rows; i++) if (out[i] >= mul / 2) out[i] -= mul;
    }
    return out;
  }
  async function loadClasses() {
    const out = {};
    for (const name of ["suit", "all"]) {
      const c = D.classes[name];
      const deltas = planes(await inflate(c.keys.data), 0, c.count, c.keys.width, false);
      const keys = new Float64Array(c.count);
      let key = 0;
      for (let i = 0; i < c.count; i++) { key += deltas[i]; keys[i] = key; }
      const mult = planes(await inflate(c.mult.data), 0, c.count, c.mult.width, false);
      out[name] = { keys, mult, count: c.count };
    }
    return out;
  }
  // Columns n, made, net x1, its squares, net x2, ..., net x4 squares: each stored as
  // its residual from floor(sum coef[k] * column k / scale) (hand_page.encode_columns).
  async function loadAtlas(a) {
    const buf = await inflate(a.data);
    const cols = [];
    let offset = 0;
    for (const spec of a.columns) {
      const col = planes(buf, offset, a.rows, spec.width, true);
      offset += a.rows * spec.width;
      const coef = spec.coef;
      if (coef.some((c) => c !== 0)) {
        for (let i = 0; i < a.rows; i++) {
          let t = 0;
          for (let k = 0; k < coef.length; k++) if (coef[k] !== 0) t += coef[k] * cols[k][i];
          col[i] += Math.floor(t / D.scale);
        }
      }
      cols.push(col);
    }
    cols.priors = a.priors;
    return cols;
  }

  // -- hand classes and cells (simulation/atlas_table.py, kernels/bidding.py) ------
  function suitBytes(cards) {
    const b = [0, 0, 0, 0];
    for (const c of cards) b[c >> 3] |= 1 << (c & 7);
    return b;
  }
  function classKey(b, strain) {
    if (strain < 4) {
      const o = [];
      for (let s = 0; s < 4; s++) if (s !== strain) o.push(b[s]);
      o.sort((x, y) => y - x);
      return b[strain] * 16777216 + o[0] * 65536 + o[1] * 256 + o[2];
    }
    const s = b.slice().sort((x, y) => y - x);
    return s[0] * 16777216 + s[1] * 65536 + s[2] * 256 + s[3];
  }
  function findRow(keys, key) {
    let lo = 0, hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (keys[mid] < key) lo = mid + 1; else hi = mid;
    }
    return lo < keys.length && keys[lo] === key ? lo : -1;
  }
  function cellOf(b, strain, position) {
    const kind = strain < 4 ? 0 : strain - 3;
    const cls = kind === 0 ? classes.suit : classes.all;
    const row = findRow(cls.keys, classKey(b, strain));
    if (row < 0) return null;
    const offset = [0, 4 * classes.suit.count, 4 * (classes.suit.count + classes.all.count)];
    return { index: offset[kind] + 4 * row + position - 1, mult: cls.mult[row], kind };
  }

  // belote_sim.atlas.cell_stats and belote_sim.stats.wilson_interval, operation by
  // operation.
  function cellStats(cols, r, kind) {
    const n = cols[0][r];
    if (!(n > 0)) return null;
    const nn = n;
    const made = cols[1][r];
    const p = made / nn;
    const denom = 1 + Z * Z / n;
    const centre = (p + Z * Z / (2 * n)) / denom;
    const half = Z * Math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n)) / denom;
    const out = { n, p_made: p, p_made_low: centre - half, p_made_high: centre + half,
      p_made_se: Math.max(Math.sqrt(p * (1 - p) / nn), half / Z) };
    for (const [x, col] of [[1, 2], [2, 4], [4, 6]]) {
      const mean = cols[col][r] / nn;
      const variance = (cols[col + 1][r] - nn * mean * mean) / (n > 1 ? n - 1 : NaN);
      out["net_mp_x" + x] = mean;
      out["net_mp_x" + x + "_se"] = Math.sqrt(Math.max(variance, 0) / nn);
    }
    if (cols.priors) published(cols, r, cols.priors[kind], out);
    return out;
  }

  // The values the atlas publishes (belote_sim.simulation.atlas_prior.corrected_stats,
  // operation by operation, sums added left to right; Math.exp may differ from numpy's
  // in the last bit, so both round to D.digits decimals): P(made) the posterior mean
  // under the atlas's prior of its strain kind, its sd and 95% interval, and net MP
  // corrected by it.
  function published(cols, r, prior, out) {
    const g = D.grid, lp = D.log_p, lq = D.log_q, G = g.length;
    const scale = Math.pow(10, D.digits);
    const rnd = (v) => Math.round(v * scale) / scale;
    const n = cols[0][r], made = cols[1][r];
    const w = new Float64Array(G);
    let top = -Infinity;
    for (let j = 0; j < G; j++) {
      w[j] = made * lp[j] + (n - made) * lq[j];
      if (w[j] > top) top = w[j];
    }
    let total = 0;
    for (let j = 0; j < G; j++) { w[j] = Math.exp(w[j] - top) * prior[j]; total += w[j]; }
    let mean = 0, m2 = 0;
    for (let j = 0; j < G; j++) {
      w[j] = w[j] / total;
      mean += w[j] * g[j];
      m2 += w[j] * (g[j] * g[j]);
    }
    const sd = Math.sqrt(Math.max(m2 - mean * mean, 0));
    const edge = (i) => (i === 0 ? 0 : i === G ? 1 : (g[i] + g[i - 1]) / 2);
    const quantile = (q) => {
      const cdf = [0];
      let c = 0;
      for (let j = 0; j < G; j++) { c += w[j]; cdf.push(c); }
      let i = 0;
      for (const v of cdf) if (v < q) i++;
      i = Math.min(Math.max(i, 1), G);
      const lo = cdf[i - 1], width = cdf[i] - lo;
      const frac = width > 0 ? (q - lo) / width : 0.5;
      return edge(i - 1) + frac * (edge(i) - edge(i - 1));
    };
    out.p_made_raw = out.p_made;
    out.net_mp_x1_raw = out.net_mp_x1;
    out.p_made = rnd(mean);
    out.p_made_se = rnd(sd);
    out.p_made_low = rnd(quantile(0.025));
    out.p_made_high = rnd(quantile(0.975));
    const pq = mean * (1.0 - mean);
    const shift = made / n - mean;
    const pool = Math.sqrt(cols[5][r] / n / 4.0);
    for (const [x, col] of [[1, 2], [2, 4], [4, 6]]) {
      const net = cols[col][r] / n;
      const variance = Math.max((cols[col + 1][r] - n * net * net) / (n > 1 ? n - 1 : NaN), 0);
      const delta = pool > 0 ? Math.max((net + x * pool) / mean, 0) : Math.sqrt(variance / pq);
      out["net_mp_x" + x] = rnd(net - delta * shift);
      out["net_mp_x" + x + "_se"] = rnd(Math.sqrt(
        Math.max(variance - delta * delta * pq, 0) / n + delta * delta * sd * sd));
    }
  }

  function evaluate(cards, position, cols) {
    const b = suitBytes(cards);
    const rows = [];
    const missing = [];
    STRAINS.forEach((name, strain) => {
      const cell = cellOf(b, strain, position);
      const st = cell && cellStats(cols, cell.index, cell.kind);
      if (!st) { missing.push(name); return; }
      st.strain = name;
      st.strainIndex = strain;
      st.multiplicity = cell.mult;
      rows.push(st);
    });
    let best = null;
    for (const r of rows) if (best === null || r.net_mp_x1 > best.net_mp_x1) best = r;
    const call = best && best.net_mp_x1 > 0 ? best.strain : "pass";
    const noise = best !== null && Math.abs(best.net_mp_x1) < Z * best.net_mp_x1_se;
    return { rows, missing, best, call, noise };
  }

  // The value of a hand: its call's net MP x1 (0 for a pass), and that call.
  function handValue(cards, position, cols) {
    const b = suitBytes(cards);
    let best = -Infinity, strain = -1;
    for (let s = 0; s < 6; s++) {
      const cell = cellOf(b, s, position);
      if (!cell) continue;
      // the published value (corrected by the prior, as the table above shows it)
      const stats = cellStats(cols, cell.index, cell.kind);
      if (stats === null) continue;
      const mean = stats.net_mp_x1;
      if (mean > best) { best = mean; strain = s; }
    }
    if (strain < 0) return null;
    return best > 0 ? { value: best, call: STRAINS[strain] } : { value: 0, call: "pass" };
  }

  function swaps(cards, position, cols) {
    const hand = cards.slice().sort((x, y) => x - y);
    const base = handValue(hand, position, cols);
    if (base === null) return null;
    let up = null, down = null, changed = 0, total = 0;
    for (let i = 0; i < hand.length; i++) {
      for (let c = 0; c < 32; c++) {
        if (hand.includes(c)) continue;
        const next = hand.slice();
        next[i] = c;
        const v = handValue(next, position, cols);
        if (v === null) continue;
        total++;
        if (v.call !== base.call) changed++;
        const s = { out: hand[i], in: c, value: v.value, call: v.call,
          delta: v.value - base.value };
        if (up === null || s.delta > up.delta) up = s;
        if (down === null || s.delta < down.delta) down = s;
      }
    }
    return { base, up, down, changed, total };
  }

  // -- text ---------------------------------------------------------------------
  function cardText(c) { return RANKS[c & 7] + SUITS[c >> 3]; }
  function cardHtml(c) {
    const red = (c >> 3) === 1 || (c >> 3) === 2;
    return `<span class="${red ? "suit-red" : ""}">${RANK_SHOW[c & 7]}${SYMBOLS[c >> 3]}</span>`;
  }
  function strainHtml(name, compact) {
    const i = STRAINS.indexOf(name);
    if (i < 0) return name;
    let text = STRAIN_SHOW[i];
    if (compact) {
      text = i < 4 ? `${SYMBOLS[i]}<span class="long"> ${text.slice(2)}</span>`
        : `<span class="short">${name}</span><span class="long">${text}</span>`;
    }
    return i === 1 || i === 2 ? `<span class="suit-red">${text}</span>` : text;
  }
  function parseCard(token) {
    let s = token.trim().toUpperCase();
    const sym = { "♣": "C", "♦": "D", "♥": "H", "♠": "S" };
    const last = s.slice(-1);
    if (sym[last]) s = s.slice(0, -1) + sym[last];
    if (s.startsWith("10")) s = "T" + s.slice(2);
    if (s.length !== 2 || RANKS.indexOf(s[0]) < 0 || SUITS.indexOf(s[1]) < 0) return -1;
    return 8 * SUITS.indexOf(s[1]) + RANKS.indexOf(s[0]);
  }
  function parseCards(text) {
    const tokens = text.split(/[\s,;]+/).filter((t) => t.length > 0);
    const cards = [];
    for (const t of tokens) {
      const c = parseCard(t);
      if (c < 0) return { error: `"${t}" is not a card: rank 7 8 9 T(10) J Q K A, then suit C D H S` };
      if (cards.includes(c)) return { error: `${cardText(c)} twice` };
      cards.push(c);
    }
    if (cards.length > 5) return { error: `${cards.length} cards: a bidding hand is 5` };
    return { cards };
  }
  const esc = (s) => String(s).replace(/[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]);
  function num(field, v, text) {
    return `<span data-f="${field}" data-v="${String(v)}">${text}</span>`;
  }
  const pct = (p) => (100 * p).toFixed(1);
  function mp(x) {
    const t = Math.abs(x).toFixed(2);
    return (x < 0 && t !== "0.00" ? "−" : "+") + t;
  }
  const worth = (v) => (v === 0 ? "0 MP" : `${mp(v)} MP`);
  const sign = (x) => (x > 0 ? "pos" : x < 0 ? "neg" : "");
  function grouped(n) { return Math.round(n).toLocaleString("en-US"); }

  // -- rendering ------------------------------------------------------------------
  function renderTable(res) {
    const head = "<thead><tr><th class=l><span class=long>strain</span></th><th>P(made)<br>" +
      "<span class=long>95% interval</span></th>" +
      "<th><span class=long>net MP </span>x1<br>± s.e.</th><th>x2<span class=long> (doubled)</span><br>± s.e.</th>" +
      "<th>x4<span class=long> (redoubled)</span><br>± s.e.</th><th>deals</th>" +
      "<th>hands<span class=long> in<br>class</span></th></tr></thead>";
    const body = res.rows.map((r) => {
      const best = res.call !== "pass" && r === res.best;
      const net = (x) => `<td class="${sign(r["net_mp_x" + x])}">` +
        num("net_mp_x" + x, r["net_mp_x" + x], mp(r["net_mp_x" + x])) +
        `<span class="se">± ${num("net_mp_x" + x + "_se", r["net_mp_x" + x + "_se"],
          r["net_mp_x" + x + "_se"].toFixed(2))}</span></td>`;
      return `<tr data-strain="${r.strain}"${best ? " class=best" : ""}>` +
        `<td class=l>${strainHtml(r.strain, true)}</td>` +
        `<td>${num("p_made", r.p_made, pct(r.p_made))}%<span class="ci">` +
        `${num("p_made_low", r.p_made_low, pct(r.p_made_low))}–` +
        `${num("p_made_high", r.p_made_high, pct(r.p_made_high))}%</span></td>` +
        net(1) + net(2) + net(4) +
        `<td>${num("n", r.n, grouped(r.n))}</td>` +
        `<td>${num("multiplicity", r.multiplicity, grouped(r.multiplicity))}</td></tr>`;
    }).join("");
    const caption = "<caption class=short>net MP per deal ± s.e. at x1, x2 (doubled), " +
      "x4 (redoubled)</caption>";
    $("strains").innerHTML = caption + head + "<tbody>" + body + "</tbody>";
  }

  function renderVerdict(res, cards) {
    const v = $("verdict");
    const hand = cards.slice().sort((x, y) => x - y).map(cardHtml).join(" ");
    const pos = state.position;
    let html = `<div class="hand">${hand} <span class="note">at position ${pos}` +
      `${pos === 1 ? " (leads)" : pos === 4 ? " (dealer)" : ""}</span></div>`;
    if (!res.best) {
      v.className = "";
      v.dataset.bestCall = "";
      v.innerHTML = html + "<p>This atlas has no deals for this hand.</p>";
      return;
    }
    const b = res.best;
    const value = `${num("best_net_mp_x1", b.net_mp_x1, mp(b.net_mp_x1))} ± ` +
      `${num("best_net_mp_x1_se", b.net_mp_x1_se, b.net_mp_x1_se.toFixed(2))} MP`;
    if (res.call === "pass") {
      html += `<div class="call" data-f="best_call" data-v="pass">Pass</div>` +
        `<p class="why">No strain gains match points on average; the best, ` +
        `${strainHtml(b.strain)}, would net ${value} per deal.</p>`;
    } else {
      html += `<div class="call" data-f="best_call" data-v="${b.strain}">Bid ` +
        `${strainHtml(b.strain)}</div><p class="why">Expected ${value} per deal ` +
        `(your team's match points minus the defenders'), P(made) ${pct(b.p_made)}%.</p>`;
    }
    if (res.noise) {
      html += `<p class="noise" data-noise="1"><b>Within noise:</b> |net MP x1| = ` +
        `${Math.abs(b.net_mp_x1).toFixed(2)} is less than 1.96 × ${b.net_mp_x1_se.toFixed(2)}` +
        ` s.e.: bidding and passing are not told apart by this atlas's deals.</p>`;
    }
    if (res.missing.length) {
      html += `<p class="note">Not measured in this atlas: ${res.missing.join(", ")}.</p>`;
    }
    v.className = res.call === "pass" ? "pass" : "bid";
    v.dataset.bestCall = res.call;
    v.dataset.noise = res.noise ? "1" : "0";
    v.innerHTML = html;
  }

  function renderSwaps(sw) {
    const el = $("swaps");
    if (!sw || !sw.up) { el.innerHTML = ""; return; }
    const item = (s, kind) => {
      const now = s.call === "pass" ? "pass" : `bid ${strainHtml(s.call)}`;
      return `<li data-swap="${kind}" data-out="${cardText(s.out)}" data-in="${cardText(s.in)}"` +
        ` data-call="${s.call}" data-value="${String(s.value)}" data-delta="${String(s.delta)}">` +
        `give ${cardHtml(s.out)}, get ${cardHtml(s.in)}: ${now}, worth ` +
        `${worth(s.value)} (<b class="${sign(s.delta)}">${mp(s.delta)}</b>)</li>`;
    };
    let html = `<h2>What one card swap would change the most</h2>` +
      `<p class="note">The hand's value now: ${worth(sw.base.value)} per deal ` +
      `(${sw.base.call === "pass" ? "pass" : "bid " + strainHtml(sw.base.call)}). ` +
      `${sw.changed} of the ${sw.total} single-card swaps change the call.</p><ul>`;
    if (sw.up.delta > 0) html += item(sw.up, "up");
    else html += `<li data-swap="up" data-delta="0">No swap raises it.</li>`;
    if (sw.down.delta < 0) html += item(sw.down, "down");
    else html += `<li data-swap="down" data-delta="0">No swap lowers it: a pass is worth 0 ` +
      `whatever the swap.</li>`;
    el.innerHTML = html + "</ul>";
  }

  function renderPicker() {
    for (const btn of $("picker").children) {
      const c = Number(btn.dataset.card);
      const on = state.cards.includes(c);
      btn.setAttribute("aria-pressed", on ? "true" : "false");
      btn.classList.toggle("dim", !on && state.cards.length >= 5);
    }
  }

  function currentKey() {
    return state.cards.slice().sort((x, y) => x - y).map(cardText).join(" ") +
      "|" + state.position + "|" + state.atlas;
  }

  function update() {
    renderPicker();
    saveHash();
    const answer = $("answer");
    const msg = $("parse-msg");
    if (state.cards.length < 5) {
      answer.dataset.key = "";
      const more = 5 - state.cards.length;
      if (!msg.classList.contains("bad")) {
        msg.textContent = `Pick ${more} more card${more === 1 ? "" : "s"}.`;
      }
      clearAnswer(`${state.cards.length} of 5 cards`);
      return;
    }
    const cols = loaded[state.atlas];
    if (!cols) {
      $("verdict").innerHTML = `<span class="call">Loading the atlas…</span>`;
      ensureAtlas(state.atlas).then(update);
      return;
    }
    msg.classList.remove("bad");
    msg.textContent = "";
    const t0 = performance.now();
    const res = evaluate(state.cards, state.position, cols);
    const sw = swaps(state.cards, state.position, cols);
    renderVerdict(res, state.cards);
    renderTable(res);
    renderSwaps(sw);
    const ms = performance.now() - t0;
    timings.push(ms);
    $("timing").textContent = `Answered in ${ms < 0.1 ? "under 0.1" : ms.toFixed(1)} ms, ` +
      "in this browser.";
    answer.dataset.key = currentKey();
  }

  // What the box says is not a hand: no answer stays up beside the error (it would be
  // the answer to the last good hand, not to what the box now says).
  function clearAnswer(text) {
    $("answer").dataset.key = "";
    $("verdict").className = "";
    $("verdict").dataset.bestCall = "";
    $("verdict").innerHTML = `<span class="call">${text}</span>`;
    $("strains").innerHTML = "";
    $("swaps").innerHTML = "";
    $("timing").textContent = "";
  }

  function setCardsFromText(text) {
    const r = parseCards(text);
    const msg = $("parse-msg");
    if (r.error) {
      msg.textContent = r.error;
      msg.classList.add("bad");
      clearAnswer("No answer: fix the cards");
      return;
    }
    msg.classList.remove("bad");
    state.cards = r.cards;
    update();
  }
  function showCards() {
    $("cards").value = state.cards.slice().sort((x, y) => x - y).map(cardText).join(" ");
  }

  // -- the URL's hash: #cards=JH,9H,AH,TS,7C&position=1&atlas=FILE -------------
  function saveHash() {
    const a = D.atlases[state.atlas];
    const h = `#cards=${state.cards.map(cardText).join(",")}&position=${state.position}` +
      `&atlas=${encodeURIComponent(a ? a.file : "")}`;
    try { history.replaceState(null, "", h); } catch (e) { /* some file:// setups */ }
  }
  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const file = params.get("atlas");
    const i = D.atlases.findIndex((a) => a.file === file);
    if (i >= 0) state.atlas = i;
    const p = Number(params.get("position"));
    if (p >= 1 && p <= 4) state.position = p;
    const cards = params.get("cards");
    if (cards) {
      const r = parseCards(cards);
      if (!r.error) state.cards = r.cards;
    }
  }

  const pending = {};
  function ensureAtlas(i) {
    if (!pending[i]) {
      pending[i] = loadAtlas(D.atlases[i]).then((cols) => { loaded[i] = cols; return cols; });
    }
    return pending[i];
  }

  function atlasInfo() {
    const a = D.atlases[state.atlas];
    const m = a.meta || {};
    const deals = m.deals ? `${grouped(m.deals)} deals` : "";
    $("atlas-info").innerHTML = `<b>Players</b>: all four seats play ` +
      `${esc(a.players_name || a.play)}; <b>rules</b>: ${esc(a.ruleset)}, ` +
      `${esc(a.options_note)}.<details><summary>The players and the atlas in full` +
      `</summary>${esc(a.players)}.<br>${esc(a.file)}${deals ? ", " + deals : ""}` +
      `${m.seed !== undefined ? ", seed " + esc(m.seed) : ""}` +
      `${m.belote_sim ? ", belote-sim " + esc(m.belote_sim) : ""}; exact play spec ` +
      `<code>${esc(a.play)}</code>.</details>`;
  }

  function build() {
    const picker = $("picker");
    for (let s = 0; s < 4; s++) {
      for (let r = 7; r >= 0; r--) {
        const c = 8 * s + r;
        const btn = document.createElement("button");
        btn.type = "button";
        btn.className = "card" + (s === 1 || s === 2 ? " red" : "");
        btn.dataset.card = String(c);
        btn.textContent = RANK_SHOW[r] + SYMBOLS[s];
        btn.title = cardText(c);
        btn.addEventListener("click", () => {
          const at = state.cards.indexOf(c);
          if (at >= 0) state.cards.splice(at, 1);
          else if (state.cards.length < 5) state.cards.push(c);
          else {
            $("parse-msg").textContent = "Five cards already: click one of them to take it back.";
            return;
          }
          $("parse-msg").classList.remove("bad");
          showCards();
          update();
        });
        picker.appendChild(btn);
      }
    }
    const seg = $("positions");
    POSITION_SHOW.forEach(([label, sub], k) => {
      const id = `position${k + 1}`;
      seg.insertAdjacentHTML("beforeend",
        `<input type="radio" name="position" id="${id}" value="${k + 1}">` +
        `<label for="${id}">${label}${sub ? `<small>${sub}</small>` : "<small>&nbsp;</small>"}</label>`);
    });
    seg.addEventListener("change", (e) => {
      state.position = Number(e.target.value);
      update();
    });
    const select = $("atlas");
    D.atlases.forEach((a, i) => {
      const opt = document.createElement("option");
      opt.value = String(i);
      opt.textContent = `${a.ruleset} rules, ${a.players_name || a.play} players`;
      select.appendChild(opt);
    });
    select.addEventListener("change", () => {
      state.atlas = Number(select.value);
      atlasInfo();
      update();
    });
    $("cards").addEventListener("input", (e) => setCardsFromText(e.target.value));
    $("random").addEventListener("click", () => {
      const deck = Array.from({ length: 32 }, (_, i) => i);
      for (let i = 31; i > 0; i--) {
        const j = Math.floor(Math.random() * (i + 1));
        [deck[i], deck[j]] = [deck[j], deck[i]];
      }
      state.cards = deck.slice(0, 5);
      $("parse-msg").classList.remove("bad");
      showCards();
      update();
    });
    $("clear").addEventListener("click", () => {
      state.cards = [];
      $("parse-msg").classList.remove("bad");
      showCards();
      update();
      $("cards").focus();
    });
  }

  async function start() {
    if (!D || !D.atlases || !D.atlases.length) {
      $("verdict").innerHTML = "<span class='call'>No atlas data (hand_data.js) next to " +
        "this page.</span>";
      return;
    }
    if (typeof DecompressionStream === "undefined") {
      $("verdict").innerHTML = "<span class='call'>This browser is too old for this page" +
        "</span><p>It needs DecompressionStream (Chrome 80, Firefox 113, Safari 16.4 or " +
        "newer).</p>";
      return;
    }
    build();
    readHash();
    $(`position${state.position}`).checked = true;
    $("atlas").value = String(state.atlas);
    atlasInfo();
    showCards();
    classes = await loadClasses();
    const cols = await ensureAtlas(state.atlas);
    for (let k = 0; k < 4; k++) {  // compile the hot paths before the first click
      const hand = [k, 8 + k, 16 + k, 24 + k, 7 - k];
      evaluate(hand, 1 + k, cols);
      swaps(hand, 1 + k, cols);
    }
    document.body.dataset.ready = "1";
    update();
  }

  window.BELOTE_PAGE = {
    // answer a hand as a click does; returns the milliseconds it took
    show: (cards, position) => {
      state.cards = cards.slice();
      state.position = position;
      $(`position${position}`).checked = true;
      showCards();
      update();
      return timings[timings.length - 1];
    },
    evaluate: (cards, position) => evaluate(cards, position, loaded[state.atlas]),
    swaps: (cards, position) => swaps(cards, position, loaded[state.atlas]),
    parseCards,
  };
  start().catch((err) => {
    $("verdict").innerHTML = `<span class="call">The page failed to start</span><p>${esc(err)}</p>`;
    document.body.dataset.ready = "error";
  });
})();
