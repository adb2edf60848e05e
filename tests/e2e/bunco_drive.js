// Run in a page: send host commands one at a time on a socket of its own and return the
// answers (the rest of a Bunco night, for tests/e2e/test_bunco_host.py and the screenshots).
async ({code, token, commands}) => {
  const ws = new WebSocket(`ws://${location.host}/ws/rooms/${code}?token=${token}`);
  await new Promise((resolve) => ws.addEventListener("open", resolve));
  const answers = [];
  for (const [n, command] of commands.entries()) {
    const id = `shot-${n}`;
    const answer = new Promise((resolve) => ws.addEventListener("message", (e) => {
      const m = JSON.parse(e.data);
      if (m.id === id) resolve(m);
    }));
    ws.send(JSON.stringify({ ...command, id }));
    answers.push(await answer);
  }
  ws.close();
  return answers;
}
