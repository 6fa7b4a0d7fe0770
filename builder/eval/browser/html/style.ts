/** The report's stylesheet, inlined: system fonts only, so nothing is fetched. */
export const STYLE = `
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Arial,sans-serif;color:#222;margin:0;background:#fafafa}
main{max-width:1500px;margin:0 auto;padding:16px 24px}
h1{margin:0 0 4px}h2{margin:28px 0 8px;border-bottom:1px solid #ddd}h3{margin:12px 0 6px}
.meta,.muted{color:#666}.big{font-size:17px;font-weight:600}
table{border-collapse:collapse;background:#fff;margin:6px 0}
th,td{border:1px solid #e2e2e2;padding:4px 8px;text-align:start;vertical-align:top}
thead th{background:#f0f0f0;position:sticky;top:0}
td.num{text-align:end;white-space:nowrap;font-variant-numeric:tabular-nums}
.ok{color:#1d7a3a}.bad{color:#b3261e}
.tag{display:inline-block;border-radius:3px;padding:0 5px;font-size:12px;background:#eee;margin:1px 0}
.tag.bad{background:#fde7e5}.tag.ok{background:#e3f4e7}
tr.fail td:first-child{border-inline-start:4px solid #b3261e}tr.pass td:first-child{border-inline-start:4px solid #1d7a3a}
.row{display:flex;flex-wrap:wrap;gap:24px;align-items:flex-start}
figure{margin:6px 0}figcaption{font-weight:600;margin-bottom:4px}
.legend{font-size:12px}.key i{display:inline-block;width:10px;height:10px;margin:0 4px 0 10px}
table.questions{width:100%;font-size:13px}table.questions td{max-width:420px}
.pre{white-space:pre-wrap}.ref{margin-top:4px;color:#555;font-size:12px}
.cite{margin-bottom:3px;overflow-wrap:anywhere;min-width:220px}.cite details{white-space:normal;font-size:12px}
.id{font-family:ui-monospace,monospace;font-size:12px}
details summary{cursor:pointer;color:#2f6db5}
`;
