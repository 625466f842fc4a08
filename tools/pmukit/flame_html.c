/* pmukit CLI: the flame graph page of `pmukit script report flamegraph`
 * (-f html, the default): one self-contained HTML file, no network at view
 * time (perf 6.1's needs the d3-flame-graph template). It holds the tree
 * as the JSON of pk_flame_json (in a <script type="application/json">
 * block, "</" written "<\/" so that no name ends the block), the report
 * header (`pmukit report --header-only`'s text) in a collapsible block,
 * and a small script drawing the tree: the root at the top (deep stacks
 * open on their base), the graph as tall as the frames drawn, a frame's
 * width its samples (its own and its callees'), kernel frames in blue,
 * click to zoom into a frame (its callers kept full width above), a search
 * box that highlights the matching frames and says their share, a tooltip
 * with name, samples and percent; a URL ending in ?s=REGEXP opens with
 * that search. */
#include "flame_html.h"

#include <string.h>

static const char page_head[] =
	"<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	"<title>pmukit flame graph</title>\n<style>\n"
	"body{font:12px sans-serif;margin:8px;background:#fff;color:#222}\n"
	"#bar{display:flex;gap:8px;align-items:center;margin-bottom:6px}\n"
	"#bar h1{font-size:16px;margin:0 12px 0 0}\n"
	"#graph{position:relative;width:100%;overflow:hidden;border:1px solid #ddd}\n"
	".f{position:absolute;height:17px;box-sizing:border-box;border:1px solid #fff;"
	"overflow:hidden;white-space:nowrap;font:11px monospace;line-height:15px;"
	"padding-left:2px;cursor:pointer}\n"
	".f:hover{border-color:#000}\n.f.hit{background:#e040e0 !important}\n"
	".f.dim{opacity:.45}\n"
	"#tip{position:fixed;display:none;background:#ffe;border:1px solid #888;"
	"padding:3px 6px;pointer-events:none;font:12px monospace;max-width:60%}\n"
	"#match{color:#a0a}\npre{font:11px monospace;background:#f6f6f6;padding:6px}\n"
	"</style>\n</head>\n<body>\n<div id=\"bar\"><h1>Flame graph</h1>"
	"<button id=\"reset\">Reset zoom</button>"
	"<input id=\"search\" placeholder=\"search (regexp)\" size=\"30\">"
	"<button id=\"clear\">Clear</button><span id=\"match\"></span></div>\n"
	"<div id=\"graph\"></div>\n<div id=\"tip\"></div>\n"
	"<details id=\"header\"><summary>perf.data header (report --header-only)"
	"</summary>\n<pre>";

static const char page_mid[] = "</pre></details>\n<script type=\"application/json\" id=\"data\">";

static const char page_tail[] =
	"</script>\n<script>\n(function(){\n"
	"'use strict';\n"
	"var root=JSON.parse(document.getElementById('data').textContent);\n"
	"var H=17,graph=document.getElementById('graph'),tip=document.getElementById('tip');\n"
	"function total(n,p){n.p=p;var t=n.v;for(var i=0;i<n.c.length;i++)t+=total(n.c[i],n);"
	"return n.t=t;}\ntotal(root,null);\n"
	"var zoom=root,re=null,shown=0;\n"
	"function hash(s){var h=0;for(var i=0;i<s.length;i++)h=(h*31+s.charCodeAt(i))|0;"
	"return Math.abs(h);}\n"
	"function color(n){var h=hash(n.n);if(n.l==='root')return 'rgb(200,200,200)';"
	"if(n.l==='kernel')return 'hsl('+(195+h%30)+',70%,'+(60+h%15)+'%)';"
	"return 'hsl('+(h%50)+',85%,'+(55+h%15)+'%)';}\n"
	"function esc(s){return s.replace(/&/g,'&amp;').replace(/</g,'&lt;');}\n"
	"function pct(x){return root.t?(100*x/root.t).toFixed(2):'0.00';}\n"
	"function frame(n,x,w,d){var e=document.createElement('div');e.className='f';"
	"e.style.left=x+'px';e.style.width=w+'px';e.style.top=(d*H)+'px';if(d>=shown)shown=d+1;"
	"e.style.background=color(n);if(w>30)e.textContent=n.n;e.node=n;"
	"if(re&&re.test(n.n))e.className+=' hit';graph.appendChild(e);return e;}\n"
	"function draw(){graph.textContent='';shown=0;"
	"var W=graph.clientWidth,path=[],a;for(a=zoom;a;a=a.p)path.unshift(a);"
	"for(var i=0;i<path.length-1;i++)frame(path[i],0,W,i).className+=' dim';"
	"(function lay(n,x,d){var w=zoom.t?W*n.t/zoom.t:0;if(w<0.5)return;frame(n,x,w,d);"
	"var cx=x;for(var i=0;i<n.c.length;i++){lay(n.c[i],cx,d+1);"
	"cx+=zoom.t?W*n.c[i].t/zoom.t:0;}})(zoom,0,path.length-1);"
	"graph.style.height=(shown*H)+'px';match();}\n"
	"function match(){var m=document.getElementById('match');if(!re){m.textContent='';return;}"
	"var s=0;(function walk(n){if(re.test(n.n)){s+=n.t;return;}"
	"for(var i=0;i<n.c.length;i++)walk(n.c[i]);})(root);"
	"m.textContent='Matched: '+pct(s)+'% ('+s+' of '+root.t+' samples)';}\n"
	"graph.addEventListener('click',function(ev){var n=ev.target.node;"
	"if(n){zoom=n;draw();}});\n"
	"graph.addEventListener('mousemove',function(ev){var n=ev.target.node;"
	"if(!n){tip.style.display='none';return;}"
	"tip.innerHTML=esc(n.n)+'<br>'+n.t+' samples ('+pct(n.t)+'%)'+"
	"(n.l==='kernel'?' [kernel]':'');tip.style.display='block';"
	"tip.style.left=(ev.clientX+12)+'px';tip.style.top=(ev.clientY+12)+'px';});\n"
	"graph.addEventListener('mouseleave',function(){tip.style.display='none';});\n"
	"document.getElementById('reset').onclick=function(){zoom=root;draw();};\n"
	"var box=document.getElementById('search');\n"
	"box.oninput=function(){try{re=box.value?new RegExp(box.value):null;}"
	"catch(e){re=null;}draw();};\n"
	"document.getElementById('clear').onclick=function(){box.value='';re=null;draw();};\n"
	"window.onresize=draw;\nvar q=/[?&]s=([^&]*)/.exec(location.search);"
	"if(q){box.value=decodeURIComponent(q[1]);box.oninput();}else draw();\n"
	"})();\n</script>\n</body>\n</html>\n";

/* text with &, < and > as entities. */
static void put_escaped(FILE *f, const char *text)
{
	for (const char *c = text; *c; c++) {
		if (*c == '&')
			fputs("&amp;", f);
		else if (*c == '<')
			fputs("&lt;", f);
		else if (*c == '>')
			fputs("&gt;", f);
		else
			fputc(*c, f);
	}
}

void flame_html_write(FILE *f, const char *json, size_t len, const char *header)
{
	fputs(page_head, f);
	put_escaped(f, header ? header : "");
	fputs(page_mid, f);
	for (size_t i = 0; i < len; i++) {
		if (json[i] == '<' && i + 1 < len && json[i + 1] == '/')
			fputs("<\\", f);
		else
			fputc(json[i], f);
	}
	fputs(page_tail, f);
}
