; ModuleID = "wgc"
target triple = "dxil-ms-dx"
target datalayout = ""

%"class.RWStructuredBuffer<uint>" = type opaque
declare void @"DispatchNode"()

declare void @"ConsumerNode0"()

declare void @"ConsumerNode1"()

declare void @"ConsumerNode2"()

declare void @"ConsumerNode63"()

@"ConsumerResults" = external constant %"class.RWStructuredBuffer<uint>"
!dx.version = !{ !0 }
!dx.shaderModel = !{ !1 }
!dx.resources = !{ !5 }
!dx.entryPoints = !{ !6, !15, !19, !22, !25, !28 }
!wgc.spirv.entryPoints = !{ !29, !30, !31, !32, !33 }
!wgc.experimental.tags = !{ !34, !35 }
!llvm.ident = !{ !36 }
!0 = !{ i32 1, i32 9 }
!1 = !{ !"lib", i32 6, i32 9 }
!2 = !{ i32 1, i32 4 }
!3 = !{ i32 0, %"class.RWStructuredBuffer<uint>"* @"ConsumerResults", !"ConsumerResults", i32 0, i32 0, i32 1, i32 12, i1 false, i1 false, i1 false, !2 }
!4 = !{ !3 }
!5 = !{ null, !4, null, null }
!6 = !{ null, !"", null, !5, null }
!7 = !{ !"DispatchNode", i32 0 }
!8 = !{ i32 1, i32 1, i32 1 }
!9 = !{ i32 0, i32 8, i32 2, i32 4 }
!10 = !{ !"ConsumerNodes", i32 0 }
!11 = !{ i32 1, i32 22, i32 2, !9, i32 3, i32 64, i32 5, i32 64, i32 6, i1 true, i32 0, !10, i32 7, i32 1 }
!12 = !{ !11 }
!13 = !{ i32 64, i32 1, i32 1 }
!14 = !{ i32 8, i32 15, i32 13, i32 1, i32 14, i1 true, i32 15, !7, i32 16, i32 -1, i32 18, !8, i32 21, !12, i32 4, !13 }
!15 = !{ void ()* @"DispatchNode", !"DispatchNode", null, null, !14 }
!16 = !{ i32 1, i32 33, i32 2, !9 }
!17 = !{ !16 }
!18 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !10, i32 16, i32 -1, i32 20, !17, i32 4, !8 }
!19 = !{ void ()* @"ConsumerNode0", !"ConsumerNode0", null, null, !18 }
!20 = !{ !"ConsumerNodes", i32 1 }
!21 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !20, i32 16, i32 -1, i32 20, !17, i32 4, !8 }
!22 = !{ void ()* @"ConsumerNode1", !"ConsumerNode1", null, null, !21 }
!23 = !{ !"ConsumerNodes", i32 2 }
!24 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !23, i32 16, i32 -1, i32 20, !17, i32 4, !8 }
!25 = !{ void ()* @"ConsumerNode2", !"ConsumerNode2", null, null, !24 }
!26 = !{ !"ConsumerNodes", i32 63 }
!27 = !{ i32 8, i32 15, i32 13, i32 3, i32 15, !26, i32 16, i32 -1, i32 20, !17, i32 4, !8 }
!28 = !{ void ()* @"ConsumerNode63", !"ConsumerNode63", null, null, !27 }
!29 = !{ void ()* @"DispatchNode", !"DispatchNode" }
!30 = !{ void ()* @"ConsumerNode0", !"ConsumerNode0" }
!31 = !{ void ()* @"ConsumerNode1", !"ConsumerNode1" }
!32 = !{ void ()* @"ConsumerNode2", !"ConsumerNode2" }
!33 = !{ void ()* @"ConsumerNode63", !"ConsumerNode63" }
!34 = !{ !"NodeMaxLoopIterations", i32 131072 }
!35 = !{ !"NodeMaxRecordsPerLoopIteration", i32 131073 }
!36 = !{ !"wgc 0.1.0" }
