"""Small SVG charts for the simulation reports (standard library only)."""

from html import escape

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#9c755f"]


def _frame(width, height, title, y_label, y_max, left=70, bottom=60, top=40, right=160):
    plot_w, plot_h = width - left - right, height - top - bottom
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{width / 2}" y="22" text-anchor="middle" font-size="15">{escape(title)}</text>',
           f'<text transform="translate(16,{top + plot_h / 2}) rotate(-90)" text-anchor="middle">{escape(y_label)}</text>']
    for i in range(6):
        value = y_max * i / 5
        y = top + plot_h - plot_h * i / 5
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{value:.3g}</text>')
    return out, left, top, plot_w, plot_h


def _legend(out, names, x, y):
    for i, name in enumerate(names):
        out.append(f'<rect x="{x}" y="{y + 18 * i}" width="12" height="12" fill="{PALETTE[i % len(PALETTE)]}"/>')
        out.append(f'<text x="{x + 18}" y="{y + 18 * i + 10}">{escape(name)}</text>')


def bars(path, title, y_label, categories, series, width=None, height=360):
    """Grouped bars: series is {name: [value per category]} (None: no bar)."""
    width = width or max(520, 90 * len(categories) + 240)
    values = [v for vs in series.values() for v in vs if v is not None]
    y_max = max(values) * 1.1 if values else 1.0
    out, left, top, plot_w, plot_h = _frame(width, height, title, y_label, y_max)
    group = plot_w / max(1, len(categories))
    bar = group * 0.8 / max(1, len(series))
    for c, category in enumerate(categories):
        x0 = left + group * c + group * 0.1
        for s, (name, vs) in enumerate(series.items()):
            v = vs[c]
            if v is None:
                continue
            h = plot_h * v / y_max
            out.append(f'<rect x="{x0 + bar * s:.1f}" y="{top + plot_h - h:.1f}" width="{bar * 0.95:.1f}" '
                       f'height="{h:.1f}" fill="{PALETTE[s % len(PALETTE)]}"><title>{escape(name)} '
                       f'{escape(str(category))}: {v:.4g}</title></rect>')
        out.append(f'<text x="{left + group * (c + 0.5):.1f}" y="{top + plot_h + 18}" '
                   f'text-anchor="middle">{escape(str(category))}</text>')
    _legend(out, list(series), left + plot_w + 16, top)
    out.append('</svg>')
    with open(path, "w") as f:
        f.write("\n".join(out))


def lines(path, title, x_label, y_label, series, width=640, height=360, marks=None):
    """Lines: series is {name: [(x, y), ...]}; marks is {name: x} drawn as vertical lines."""
    points = [p for ps in series.values() for p in ps]
    x_min, x_max = min(p[0] for p in points), max(p[0] for p in points)
    y_lo = min(p[1] for p in points)
    y_hi = max(p[1] for p in points)
    pad = (y_hi - y_lo) * 0.1 or abs(y_hi) * 0.05 or 1.0
    y_lo, y_hi = y_lo - pad, y_hi + pad
    out, left, top, plot_w, plot_h = _frame(width, height, title, y_label, 1.0)
    del out[4:]  # the frame's 0..y_max grid does not fit a zoomed y axis
    for i in range(6):
        value = y_lo + (y_hi - y_lo) * i / 5
        y = top + plot_h - plot_h * i / 5
        out.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y}" y2="{y}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4}" text-anchor="end">{value:.4g}</text>')
    sx = lambda x: left + plot_w * (x - x_min) / ((x_max - x_min) or 1)
    sy = lambda y: top + plot_h - plot_h * (y - y_lo) / (y_hi - y_lo)
    for i in range(6):
        x = x_min + (x_max - x_min) * i / 5
        out.append(f'<text x="{sx(x):.1f}" y="{top + plot_h + 18}" text-anchor="middle">{x:.4g}</text>')
    out.append(f'<text x="{left + plot_w / 2}" y="{height - 16}" text-anchor="middle">{escape(x_label)}</text>')
    for s, (name, ps) in enumerate(series.items()):
        colour = PALETTE[s % len(PALETTE)]
        path_d = " ".join(f"{'M' if i == 0 else 'L'}{sx(x):.1f},{sy(y):.1f}" for i, (x, y) in enumerate(sorted(ps)))
        out.append(f'<path d="{path_d}" fill="none" stroke="{colour}" stroke-width="2"/>')
        for x, y in ps:
            out.append(f'<circle cx="{sx(x):.1f}" cy="{sy(y):.1f}" r="2.5" fill="{colour}"/>')
    for m, (name, x) in enumerate((marks or {}).items()):
        out.append(f'<line x1="{sx(x):.1f}" x2="{sx(x):.1f}" y1="{top}" y2="{top + plot_h}" stroke="#333" '
                   f'stroke-dasharray="{4 + 2 * m},3"/>')
        out.append(f'<text x="{sx(x) + 4:.1f}" y="{top + 12 + 14 * m}">{escape(name)}</text>')
    _legend(out, list(series), left + plot_w + 16, top)
    out.append('</svg>')
    with open(path, "w") as f:
        f.write("\n".join(out))
