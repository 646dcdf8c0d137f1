// Not built yet: a placeholder so the routes resolve.
export default function TokensPage() {
  return <div>TokensPage</div>;
}
