// Not built yet: a placeholder so the routes resolve.
export default function ScriptPage() {
  return <div>ScriptPage</div>;
}
