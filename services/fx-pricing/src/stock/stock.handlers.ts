import { requireInternal, type Mode } from '@ppay/kernel';
import type { UnaryHandlers } from '@ppay/runtime';
import type { types } from '@ppay/proto';
import type { StockRequest, StockService } from './stock';

type Handlers = UnaryHandlers<types.fxpricing.FxPricingServiceHandlers>;

const requestOf = (req: types.fxpricing.StockRequest__Output): StockRequest => ({
  merchant_id: req.merchant_id,
  mode: req.mode as Mode,
  product_id: req.product_id,
  variation_id: req.variation_id || null,
  quantity: req.quantity,
});

/** Stock holds and returns, for payments only: decode, call, encode. */
export function stockHandlers(stock: StockService): Partial<Handlers> {
  return {
    async HoldStock(req, { caller }) {
      requireInternal(caller);
      return { outcome: await stock.hold(requestOf(req), req.hold_id) };
    },
    async ReleaseStock(req, { caller }) {
      requireInternal(caller);
      return { changed: await stock.release(req.product_id, req.hold_id) };
    },
    async CommitStock(req, { caller }) {
      requireInternal(caller);
      await stock.commit(req.product_id, req.hold_id);
      return { changed: true };
    },
    async ReturnStock(req, { caller }) {
      requireInternal(caller);
      return { changed: await stock.giveBack(requestOf(req), req.hold_id) };
    },
  };
}
