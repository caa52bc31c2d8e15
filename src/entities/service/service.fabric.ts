// Services as the fabric API shows them (`/fabric/v1/services`): the same table as the edge APIs' services, with only
// the fabric fields (upstream `api_impl/service_api_model.go` ServiceModelMapper: name and terminatorStrategy).
import { defineEntity, text } from '../../crud/define-entity.js';

export const fabricService = defineEntity({
  type: 'service',
  path: 'services',
  table: 'services',
  idKind: 'base62',
  fields: {
    name: text({ unique: true }),
    terminatorStrategy: text(),
  },
  links: (entity) => ({ terminators: `./services/${String(entity.id)}/terminators` }),
});
