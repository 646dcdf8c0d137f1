// Not built yet: a placeholder so the routes resolve.
export default function FiresPage() {
  return <div>FiresPage</div>;
}
