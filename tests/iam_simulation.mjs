// Evaluates IAM requests against policies with @cloud-copilot/iam-simulate (AWS's evaluation logic: identity
// and resource policies, explicit deny, every condition operator). Reads a JSON list of simulations on stdin,
// writes one JSON list of {result, errors} on stdout. Driven by tests/iam_simulation.py.
import { runSimulation } from '@cloud-copilot/iam-simulate';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const simulations = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const answers = [];
for (const simulation of simulations) {
  const outcome = await runSimulation(simulation, { simulationMode: 'Strict' });
  answers.push({ result: outcome.overallResult ?? null, errors: outcome.errors ?? null });
}
process.stdout.write(JSON.stringify(answers));
