// The trajectory viewer of the oracle-bench HTML report. Every string of the data may
// come from a model or a box: it is inserted with textContent only, never as markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var episodes = data.episodes;
  var runLabels = {};
  data.runs.forEach(function (r) { runLabels[r.id] = r.label; });

  function el(tag, text, cls) {
    var node = document.createElement(tag);
    if (text !== undefined && text !== null) node.textContent = String(text);
    if (cls) node.className = cls;
    return node;
  }
  function num(v, digits) {
    if (v === null || v === undefined) return "–";
    if (typeof v === "number") return Number.isInteger(v) ? String(v) : v.toFixed(digits === undefined ? 3 : digits);
    return String(v);
  }
  function outcome(ep) {
    if (ep.status !== "completed") return "failed";
    if (ep.score === null || ep.score === undefined) return "completed";
    return ep.score >= 1 ? "correct" : "incorrect";
  }
  function table(headers, rows) {
    var t = el("table"), head = el("thead"), tr = el("tr");
    headers.forEach(function (h) { tr.appendChild(el("th", h)); });
    head.appendChild(tr); t.appendChild(head);
    var body = el("tbody");
    rows.forEach(function (cells) {
      var row = el("tr");
      cells.forEach(function (c) {
        var td = el("td");
        if (c instanceof Node) td.appendChild(c); else td.textContent = c === null || c === undefined ? "" : String(c);
        row.appendChild(td);
      });
      body.appendChild(row);
    });
    t.appendChild(body);
    return t;
  }

  // -- the list and its filters ---------------------------------------------------
  var filters = [
    { key: "run", label: "run", get: function (e) { return e.run; }, show: function (v) { return runLabels[v] || v; } },
    { key: "box", label: "box", get: function (e) { return e.box_id; } },
    { key: "agent", label: "agent", get: function (e) { return e.agent; } },
    { key: "outcome", label: "outcome", get: outcome }
  ];
  var chosen = {};
  var filterBox = document.getElementById("filters");
  filters.forEach(function (f) {
    var values = [];
    episodes.forEach(function (e) { var v = f.get(e); if (values.indexOf(v) < 0) values.push(v); });
    values.sort();
    var label = el("label", f.label + " ");
    var select = el("select");
    select.id = "filter-" + f.key;
    select.appendChild(el("option", "all"));
    select.options[0].value = "";
    values.forEach(function (v) {
      var o = el("option", f.show ? f.show(v) : v);
      o.value = v;
      select.appendChild(o);
    });
    select.addEventListener("change", function () { chosen[f.key] = select.value; drawList(); });
    label.appendChild(select);
    filterBox.appendChild(label);
  });
  var count = el("span", "", "muted");
  filterBox.appendChild(count);

  function shown(e) {
    return filters.every(function (f) { return !chosen[f.key] || f.get(e) === chosen[f.key]; });
  }

  var listBox = document.getElementById("episode-list");
  var rowsByN = {};
  function drawList() {
    var kept = episodes.filter(shown);
    var t = table(["#", "run", "box", "family", "level", "agent", "setting", "outcome", "score", "steps", "bits"], []);
    var body = t.tBodies[0];
    rowsByN = {};
    kept.forEach(function (e) {
      var tr = el("tr");
      tr.className = "episode-row";
      tr.dataset.n = String(e.n);
      [e.n, e.run, e.box_id, e.family, e.level, e.agent, e.setting, outcome(e), num(e.score), e.steps.length, num(e.info_total, 2)]
        .forEach(function (c) { tr.appendChild(el("td", c)); });
      tr.addEventListener("click", function () { location.hash = "episode=" + e.n; });
      body.appendChild(tr);
      rowsByN[e.n] = tr;
    });
    listBox.replaceChildren(t);
    count.textContent = kept.length + " of " + episodes.length + " episodes";
    mark();
  }

  // -- one episode ----------------------------------------------------------------
  var current = null;
  function mark() {
    Object.keys(rowsByN).forEach(function (n) {
      rowsByN[n].classList.toggle("selected", current !== null && Number(n) === current);
    });
  }
  function facts(ep) {
    var rows = [
      ["run", runLabels[ep.run] || ep.run], ["box", ep.box_id], ["family / level", ep.family + " " + ep.level],
      ["rule kind", ep.rule_kind], ["agent", ep.agent], ["repetition", ep.repetition],
      ["kind / setting", ep.kind + " " + ep.setting], ["status", ep.status + (ep.failure ? " (" + ep.failure + ")" : "")],
      ["score", num(ep.score)], ["log2|H|", num(ep.log2_h, 2)], ["T_info", num(ep.t_info)],
      ["information", num(ep.info_total, 2) + (ep.info_exact ? "" : " (estimate)")]
    ];
    if (ep.bucket) rows.push(["bucket", ep.bucket]);
    if (ep.budget !== null && ep.budget !== undefined) rows.push(["budget", ep.budget]);
    if (ep.feedback) rows.push(["feedback", ep.feedback]);
    if (ep.error) rows.push(["error", ep.error]);
    Object.keys(ep.metrics || {}).sort().forEach(function (k) { rows.push([k, num(ep.metrics[k])]); });
    var t = table(["", ""], rows);
    t.className = "facts";
    t.tHead.remove();
    return t;
  }
  function open(n) {
    var box = document.getElementById("episode");
    var ep = episodes[n];
    if (!ep) { box.replaceChildren(); current = null; mark(); return; }
    current = n;
    var close = el("a", "back to the report");
    close.href = "#trajectories";
    var parts = [close, el("h3", "Episode " + n + ": " + ep.box_id + " / " + ep.agent + " / r" + ep.repetition), facts(ep)];
    parts.push(el("h3", "Steps (" + ep.steps.length + ")"));
    if (ep.steps.length) {
      var steps = table(["#", "action", "result", "bits", "expected bits", "log2 consistent", "similarity", "note"],
        ep.steps.map(function (s) {
          var action = el("span", s.action, s.valid ? null : "invalid");
          if (!s.counted) action.textContent += " (free)";
          return [s.index, action, el("pre", s.result), num(s.bits), num(s.expected_bits), num(s.log2_consistent, 2), num(s.similarity), s.note];
        }));
      steps.id = "episode-steps";
      parts.push(steps);
    } else {
      parts.push(el("p", "no steps", "muted"));
    }
    parts.push(el("h3", "Answers (" + ep.answers.length + ")"));
    if (ep.answers.length) {
      parts.push(table(["", "given", "expected", "verdict", "score", "attempts"],
        ep.answers.map(function (a) {
          var verdict = a.correct === null || a.correct === undefined ? "–" : (a.correct ? "correct" : "wrong");
          return [a.label, el("pre", a.given), a.expected === null ? "–" : el("pre", a.expected),
            el("span", verdict, a.correct ? "correct" : (a.correct === false ? "invalid" : null)), num(a.score), a.attempts];
        })));
    }
    if (ep.intro) { parts.push(el("h3", "Intro")); parts.push(el("pre", ep.intro)); }
    if (ep.conversation) {
      parts.push(el("h3", "Conversation (" + ep.conversation.length + " messages)"));
      ep.conversation.forEach(function (m) {
        var div = el("div", null, "message role-" + m.role);
        div.appendChild(el("div", m.role + (m.call !== null && m.call !== undefined ? " (call " + m.call + ")" : ""), "role"));
        div.appendChild(el("pre", m.content));
        if (m.tool_calls && m.tool_calls.length) div.appendChild(el("pre", JSON.stringify(m.tool_calls, null, 1)));
        parts.push(div);
      });
    }
    box.replaceChildren.apply(box, parts);
    mark();
  }
  // An open episode hides the report's other sections (a link closes it), so that the
  // list and the episode are at the top of the page: no scrolling needed.
  function fromHash() {
    var m = /^#episode=(\d+)$/.exec(location.hash);
    var n = m ? Number(m[1]) : null;
    document.body.classList.toggle("episode-open", n !== null && n < episodes.length);
    if (n !== null) open(n); else { current = null; document.getElementById("episode").replaceChildren(); mark(); }
  }
  window.addEventListener("hashchange", fromHash);
  drawList();
  fromHash();
})();
