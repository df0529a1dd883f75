// Counts tokens with the o200k tokenizer: reads a JSON object of
// name -> text on stdin and writes name -> token count.
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

let input = '';
for await (const chunk of process.stdin) input += chunk;
const texts = JSON.parse(input);
const counts = {};
for (const [name, text] of Object.entries(texts)) counts[name] = encode(text).length;
process.stdout.write(JSON.stringify(counts));
