const fs=require('fs');const f=fs.readdirSync('.').filter(x=>x.endsWith('.cpuprofile'))[0];const p=JSON.parse(fs.readFileSync(f));
const self=new Map();const total=p.samples.length;const counts=new Map();for(const s of p.samples)counts.set(s,(counts.get(s)||0)+1);
for(const n of p.nodes){const k=n.callFrame.functionName+' '+n.callFrame.url.split('/').slice(-3).join('/')+':'+n.callFrame.lineNumber;self.set(k,(self.get(k)||0)+(counts.get(n.id)||0));}
const byUrl=new Map();for(const n of p.nodes){const u=n.callFrame.url.includes('node_modules/')?n.callFrame.url.split('node_modules/')[1].split('/').slice(0,2).join('/'):n.callFrame.url.split('/').slice(-2).join('/');byUrl.set(u,(byUrl.get(u)||0)+(counts.get(n.id)||0));}
console.log([...self].sort((a,b)=>b[1]-a[1]).slice(0,25).map(([k,v])=>(v/total*100).toFixed(1)+'% '+k).join('\n'));
console.log('---');console.log([...byUrl].sort((a,b)=>b[1]-a[1]).slice(0,20).map(([k,v])=>(v/total*100).toFixed(1)+'% '+k).join('\n'));
