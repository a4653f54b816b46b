#include "listd/net/queue_page.h"

namespace listd::net {
namespace {

constexpr std::string_view kQueuePage = R"html(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>listd queues</title>
<style>
body{font:14px sans-serif;margin:16px;background:#fff;color:#222}
table{border-collapse:collapse}td,th{padding:4px 8px;border-bottom:1px solid #ddd;text-align:right}
td.key{text-align:left;font-family:monospace}canvas{border:1px solid #ccc;background:#fafafa}
.depth{color:#1f5fbf}.rate{color:#d9731a}
</style></head>
<body data-polls="0">
<h1>listd queues</h1>
<p id="status">loading</p>
<p><span class="depth">&#9632; depth</span> &nbsp; <span class="rate">&#9632; hand-offs/s</span></p>
<table><thead><tr><th>db</th><th>key</th><th>length</th><th>waiters</th><th>oldest wait (s)</th>
<th>pushes/s</th><th>pops/s</th><th>hand-offs/s</th><th>last 2 min</th></tr></thead>
<tbody id="queues"></tbody></table>
<script>
"use strict";
const kSamples = 120;
const queueHistory = new Map();  // "db key" -> [{length, handoffs}], oldest first
let polls = 0;

function cell(row, text, cls) {
  const td = document.createElement("td");
  td.textContent = text;
  if (cls) td.className = cls;
  row.appendChild(td);
}

function line(ctx, samples, field, color, w, h) {
  const max = Math.max(1e-9, ...samples.map(s => s[field]));
  ctx.strokeStyle = color;
  ctx.lineWidth = 2;
  ctx.beginPath();
  samples.forEach((s, i) => {
    const x = samples.length < 2 ? w / 2 : i * (w - 4) / (samples.length - 1) + 2;
    const y = h - 3 - (s[field] / max) * (h - 6);
    if (i === 0) ctx.moveTo(x, y); else ctx.lineTo(x, y);
  });
  if (samples.length === 1) ctx.lineTo(w / 2 + 1, h - 3 - (samples[0][field] / max) * (h - 6));
  ctx.stroke();
}

function chart(samples) {
  const c = document.createElement("canvas");
  c.width = 240;
  c.height = 48;
  const ctx = c.getContext("2d");
  line(ctx, samples, "length", "#1f5fbf", c.width, c.height);
  line(ctx, samples, "handoffs", "#d9731a", c.width, c.height);
  return c;
}

function render(queues) {
  const body = document.getElementById("queues");
  body.textContent = "";
  for (const q of queues) {
    const samples = queueHistory.get(q.db + " " + q.key) || [];
    const row = document.createElement("tr");
    row.dataset.key = q.key;
    row.dataset.samples = String(samples.length);
    cell(row, String(q.db));
    cell(row, q.key, "key");
    cell(row, String(q.length), "length");
    cell(row, String(q.waiters), "waiters");
    cell(row, q.oldest_wait_seconds.toFixed(1));
    cell(row, q.pushes_per_second.toFixed(2));
    cell(row, q.pops_per_second.toFixed(2));
    cell(row, q.handoffs_per_second.toFixed(2), "handoffs");
    const td = document.createElement("td");
    td.appendChild(chart(samples));
    row.appendChild(td);
    body.appendChild(row);
  }
}

async function poll() {
  try {
    const reply = await fetch("/queues.json", {cache: "no-store"});
    const data = await reply.json();
    for (const q of data.queues) {
      const id = q.db + " " + q.key;
      if (!queueHistory.has(id)) queueHistory.set(id, []);
      const samples = queueHistory.get(id);
      samples.push({length: q.length, handoffs: q.handoffs_per_second});
      if (samples.length > kSamples) samples.shift();
    }
    render(data.queues);
    document.body.dataset.polls = String(++polls);
    document.getElementById("status").textContent =
        data.queues.length + " queue(s), updated " + new Date().toLocaleTimeString();
  } catch (e) {
    document.getElementById("status").textContent = "error: " + e;
  }
  setTimeout(poll, 1000);
}
poll();
</script>
</body></html>
)html";

}  // namespace

std::string_view queue_page_html() noexcept { return kQueuePage; }

}  // namespace listd::net
