// Not built yet: a placeholder so the routes resolve.
export default function JobsPage() {
  return <div>JobsPage</div>;
}
