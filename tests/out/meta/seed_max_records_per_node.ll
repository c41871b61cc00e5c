; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

declare void @"DispatchNode"()

declare void @"ConsumerNode0"()

declare void @"ConsumerNode1"()

declare void @"ConsumerNode2"()

declare void @"ConsumerNode63"()

!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.entryPoints = !{ !2, !11, !15, !18, !21, !24 }
!wgc.spirv.entryPoints = !{ !25, !26, !27, !28, !29 }
!wgc.experimental.tags = !{ !30, !31 }
!llvm.ident = !{ !32 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ null, !"", null, null, null }
!3 = !{ !"DispatchNode", i32 0 }
!4 = !{ i32 1, i32 1, i32 1 }
!5 = !{ i32 0, i32 8, i32 2, i32 4 }
!6 = !{ !"ConsumerNodes", i32 0 }
!7 = !{ i32 1, i32 22, i32 2, !5, i32 3, i32 64, i32 5, i32 64, i32 6, i1 true, i32 0, !6, i32 7, i32 1 }
!8 = !{ !7 }
!9 = !{ i32 64, i32 1, i32 1 }
!10 = !{ i32 8, i32 15, i32 13, i32 1, i32 14, i1 true, i32 15, !3, i32 16, i32 -1, i32 18, !4, i32 21, !8, i32 4, !9 }
!11 = !{ void ()* @"DispatchNode", !"DispatchNode", null, null, !10 }
!12 = !{ i32 1, i32 33, i32 2, !5 }
!13 = !{ !12 }
!14 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !6, i32 16, i32 -1, i32 20, !13, i32 4, !4 }
!15 = !{ void ()* @"ConsumerNode0", !"ConsumerNode0", null, null, !14 }
!16 = !{ !"ConsumerNodes", i32 1 }
!17 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !16, i32 16, i32 -1, i32 20, !13, i32 4, !4 }
!18 = !{ void ()* @"ConsumerNode1", !"ConsumerNode1", null, null, !17 }
!19 = !{ !"ConsumerNodes", i32 2 }
!20 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !19, i32 16, i32 -1, i32 20, !13, i32 4, !4 }
!21 = !{ void ()* @"ConsumerNode2", !"ConsumerNode2", null, null, !20 }
!22 = !{ !"ConsumerNodes", i32 63 }
!23 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !22, i32 16, i32 -1, i32 20, !13, i32 4, !4 }
!24 = !{ void ()* @"ConsumerNode63", !"ConsumerNode63", null, null, !23 }
!25 = !{ void ()* @"DispatchNode", !"DispatchNode" }
!26 = !{ void ()* @"ConsumerNode0", !"ConsumerNode0" }
!27 = !{ void ()* @"ConsumerNode1", !"ConsumerNode1" }
!28 = !{ void ()* @"ConsumerNode2", !"ConsumerNode2" }
!29 = !{ void ()* @"ConsumerNode63", !"ConsumerNode63" }
!30 = !{ !"NodeMaxLoopIterations", i32 131072 }
!31 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!32 = !{ !"wgc 0.1.0" }
