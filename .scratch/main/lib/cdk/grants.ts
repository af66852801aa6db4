import * as iam from 'aws-cdk-lib/aws-iam';

/** Grants exactly `actions` on `resources` (nothing when there are none). */
export function grantActions(grantee: iam.IGrantable, actions: ReadonlyArray<string>, resources: ReadonlyArray<string>): void {
  if (resources.length === 0) return;
  iam.Grant.addToPrincipal({ grantee, actions: [...actions], resourceArns: [...resources] });
}
