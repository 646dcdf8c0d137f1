// Not built yet: a placeholder so the routes resolve.
export default function JobEditPage() {
  return <div>JobEditPage</div>;
}
